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

import streamlit.components.v2 as components

from ui.placed_element import element_script, frontend_chunk, show_placed

NAME = "lmlab_plotly"
"""The component's name (Streamlit's element ``component_name``)."""
SCRIPT = element_script(Path(__file__).with_name("plotly_element.js"), PLOTLY_CHUNK=frontend_chunk("PlotlyChart"))
"""ui/plotly_element.js with the name of the chunk of Streamlit's frontend that holds plotly.js (and sets window.Plotly)."""
_mount = components.component(NAME, js=SCRIPT, isolate_styles=False)  # Plotly's own CSS must reach the plot


def show(spec_json: bytes, where: Any = None, key: str | None = None) -> None:
    """Show the figure whose spec is ``spec_json`` across the width of ``where`` (``st`` if None);
    ``key`` (else the place's: ui/placed_element.py) keeps the element, and so its plot, from run to run."""
    show_placed(_mount, spec_json, where, key)
