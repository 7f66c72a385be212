"""A Plotly chart element that draws each change once (a Streamlit components-v2 element).

Streamlit 1.67's ``st.plotly_chart`` draws every new figure twice in the browser, and the first
time from scratch: its element is mounted anew (a new plot: 25-90 ms for the app's charts on this
machine, quiet), then drawn again once its width is set (5-10 ms). This element keeps its plot from
run to run (keyed by its place) and hands each new figure to ``Plotly.react``, which compares it
with what is drawn and draws once, at the container's width (ui/plotly_element.js).

The figure travels as its spec's UTF-8 JSON (the element's ``bytes`` payload: built once per cached
figure, hashed by Streamlit without another JSON pass). plotly.js is the copy Streamlit's frontend
ships (its ``PlotlyChart`` chunk, served by our own server and cached by the browser for a year).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import streamlit as st
import streamlit.components.v2 as components
from streamlit.errors import StreamlitDuplicateElementKey

NAME = "lmlab_plotly"
"""The component's name (Streamlit's element ``component_name``)."""
STATIC_JS = Path(st.__file__).parent / "static" / "static" / "js"


def plotly_chunk() -> str:
    """The file name of the chunk of Streamlit's frontend that holds plotly.js (and sets window.Plotly)."""
    found = sorted(path.name for path in STATIC_JS.glob("PlotlyChart.*.js"))
    if len(found) != 1:
        raise RuntimeError(f"expected one PlotlyChart chunk in Streamlit's frontend, found {found}")
    return found[0]


def script() -> str:
    """ui/plotly_element.js as sent with every chart (inline, in each element's message): its lines
    without indentation, comment lines left out (a third of its size)."""
    source = Path(__file__).with_name("plotly_element.js").read_text(encoding="utf-8")
    lines = (line.strip() for line in source.splitlines())
    return "\n".join(line for line in lines if line and not line.startswith("//")).replace("__PLOTLY_CHUNK__", plotly_chunk())


SCRIPT = script()
_mount = components.component(NAME, js=SCRIPT, isolate_styles=False)  # Plotly's own CSS must reach the plot


def place_key(where: Any = None) -> str:
    """A key naming the place the next element of ``where`` (``st`` if None) goes to: the same in every
    run that draws the page alike. Without a key the element's identity is its data, and each new
    figure would mount a new element (a plot made from scratch) instead of updating the one shown."""
    dg = st._main if where is None or where is st else where
    path = dg._get_write_delta_path_str()  # "[0, 3, 1]": root container, blocks, index
    return "lmlab_plot_" + "_".join(part.strip() for part in path.strip("[]").split(","))


def _mount_in(where: Any, spec_json: bytes, key: str | None) -> None:
    if where is None or where is st:
        _mount(data=spec_json, key=key)
    else:
        with where:
            _mount(data=spec_json, key=key)


def show(spec_json: bytes, where: Any = None, key: str | None = None) -> None:
    """Show the figure whose spec is ``spec_json`` across the width of ``where`` (``st`` if None);
    ``key`` (else the place's, :func:`place_key`) keeps the element, and so its plot, from run to run.

    A second chart written to the same place in one run (an ``st.empty`` filled again) is keyed by
    its data, as an element without a key is."""
    if key is not None:
        _mount_in(where, spec_json, key)
        return
    try:
        _mount_in(where, spec_json, place_key(where))
    except StreamlitDuplicateElementKey:
        _mount_in(where, spec_json, None)
