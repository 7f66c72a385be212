"""Figures built once per inputs and shared by every session.

Building a Plotly figure in Python (validating every property) costs more server time than the
data it shows: 30-110 ms of a page's 100-220 ms warm run here, and under a class of 30 a quarter
of the time the server's interpreter lock was held went to Plotly (py-spy, ``--gil``). In class
most students look at the same corpus with the same settings, so a figure is made once and reused.

A cached figure is shared read-only: it is shown from the spec JSON built with it, and no page
changes a figure after building it. Entries go after an hour unused, at 256 entries, or when the server has
no session left (:func:`forget_figures`, from server/corpus_use.py's ``release_memory``).

Every chart is shown with :func:`plot`: in Streamlit's look (:func:`spec`), by ui/plotly_element.py,
which draws each new figure once in the browser (``st.plotly_chart`` drew it twice, and from scratch).
"""
from __future__ import annotations

import base64
import hashlib
import json
import logging
import re
import threading
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Any

import numpy as np
import plotly.graph_objects as go
import plotly.io
import streamlit as st
from streamlit.runtime.caching.cache_errors import UnhashableParamError

from lmcore.figures.style import HIGHLIGHT
from lmcore.figures.template import MAPS, inline_template
from ui import plotly_element

_log = logging.getLogger(__name__)
THEME = json.loads((Path(__file__).resolve().parents[1] / "assets" / "plotly" / "streamlit_light.json").read_text())
"""Streamlit's light chart theme as its frontend resolves it (assets/plotly/make_streamlit_theme.py)."""


@st.cache_resource(show_spinner=False, max_entries=256, ttl=3600)
def _figure(name: str, key: Hashable, _make: Callable[[], Any]):
    fig = _make()
    fig._shown_json = spec_json(fig)  # built once with the figure (under the cache's lock), read by plot()
    return fig


_styling = threading.Lock()


def styled_once(fig: go.Figure | dict, style: Callable[[Any], go.Figure]) -> go.Figure:
    """``style(fig)``, the projector's copy (the one style kept: pass no other). For a cached figure (:func:`chart`) made once, by one
    thread, with its spec, and kept with it: a class of students on one slide shares it instead of
    each page run copying, restyling and serialising the figure again. Any other figure: styled anew."""
    if getattr(fig, "_shown_json", None) is None:
        return style(fig)
    kept = getattr(fig, "_styled", None)
    if kept is None:
        with _styling:
            kept = getattr(fig, "_styled", None)
            if kept is None:
                kept = style(fig)
                kept._shown_json = spec_json(kept)
                fig._styled = kept
    return kept


def keyed_figure(name: str, key: tuple, make: Callable[[], Any]):
    """``make()``, once per ``name`` and ``key`` (the key names everything the figure shows)."""
    return _figure(name, key, make)


def chart(builder: Callable[..., Any], *args: Any, **kwargs: Any):
    """``builder(*args, **kwargs)``, once per builder and argument values (hashed by Streamlit's
    cache: arrays, numbers, strings, dataclasses); arguments it cannot hash build the figure anew."""
    name = f"{builder.__module__}.{builder.__qualname__}"
    try:
        return _figure(name, (args, tuple(sorted(kwargs.items()))), lambda: builder(*args, **kwargs))
    except UnhashableParamError:
        _log.warning("figure %s built without its cache: arguments not hashable", name)
        return builder(*args, **kwargs)


def forget_figures() -> None:
    """Drop every cached figure (the server is idle: nobody is looking at them)."""
    _figure.clear()


class _Spec(go.Figure):
    """A figure spec that ``st.plotly_chart`` sends as it is (bench/one_slider_app.py compares it with
    the element): Streamlit turns a Figure into the spec it sends with ``to_dict()`` (and validates a
    plain dict again, adding the default template back), so this Figure's ``to_dict()`` returns the
    spec. Nothing else of Figure is used."""

    def __init__(self, spec: dict) -> None:  # no Figure.__init__: the spec was validated when built
        self._spec = spec

    def to_dict(self) -> dict:
        return self._spec


def _plain(value: Any) -> Any:
    """``value`` with every array a list. Plotly.py 6 writes numpy arrays as typed-array objects
    (``{"dtype", "bdata"}``), which plotly.js compares by identity whatever ``datarevision`` says:
    each such chart would be drawn twice again."""
    if isinstance(value, dict):
        if "bdata" in value and "dtype" in value:
            array = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
            shape = [int(n) for n in str(value.get("shape", len(array))).split(",")]
            return array.reshape(shape).tolist()
        return {key: _plain(v) for key, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value.tolist() if isinstance(value, np.ndarray) else value


_AXIS = re.compile(r"^[xy]axis\d*$")
JSON_ENGINE = "orjson"
"""How a spec is written as JSON (twice per figure built: its datarevision, then what is sent): orjson
writes the same JSON as the json module in a quarter of the time for a 32×37 heat map with its hover
data (1.2 ms against 5.2), a figure a new value of the LSTM page's controls builds."""


def unchecked_tick_labels(spec: dict) -> dict:
    """``spec`` (changed in place) with ``ticklabeloverflow: "allow"`` on every x and y axis and colour
    bar that does not set it. plotly.js's default for an axis that is not a category axis, "hide past
    div", measures every tick label against the plot's box after each draw (a layout of the page per
    label: the 37 token labels of the LSTM page's heatmap made its Plotly.react 30 ms instead of 23 ms
    on a blank page); automargin has already made room for the labels."""
    layout = spec.setdefault("layout", {})
    for key, axis in layout.items():
        if _AXIS.match(key) and isinstance(axis, dict):
            axis.setdefault("ticklabeloverflow", "allow")
    for trace in spec.get("data", []):
        if trace.get("type") in MAPS or isinstance(trace.get("colorbar"), dict):  # the traces drawn with a colour bar
            trace.setdefault("colorbar", {}).setdefault("ticklabeloverflow", "allow")
    return spec


def spec(fig: go.Figure | dict) -> dict:
    """``fig`` (a Figure or its ``to_dict()``) as shown: Streamlit's light theme written into it (no
    ``layout.template``) and a ``layout.datarevision`` that changes with its arrays. A figure's
    ``layout.meta.lmNarrow`` (its phone layout) moves to the spec's ``lmNarrow`` (ui/plotly_element.js).

    ``Plotly.react`` given the next figure compares it with the one drawn: a template is compared by
    identity (always new); arrays (a trace's data, an axis's tick values) are taken as unchanged while
    the datarevision is, and as all changed when it changes. The datarevision is a hash of all the
    figure but its shapes named ``HIGHLIGHT`` (lmcore/figures/style.py: a mark inside the data, which
    changes no axis range), which Plotly.react compares by value: an unchanged chart is not drawn
    again, a chart whose highlight alone moved redraws the highlight alone (the step marked on a
    heatmap; ui/plotly_element.js keeps the axes' ranges), and any other change draws it once."""
    out = _plain(inline_template(fig.to_dict() if isinstance(fig, go.Figure) else fig, THEME))
    meta = out["layout"].get("meta")
    if isinstance(meta, dict) and "lmNarrow" in meta:  # for the element alone: Plotly.react redraws all for a meta object
        meta = dict(meta)
        out["lmNarrow"] = meta.pop("lmNarrow")
        out["layout"]["meta"] = meta
        if not meta:
            del out["layout"]["meta"]
    unchecked_tick_labels(out)
    shapes = [shape for shape in out["layout"].get("shapes", []) if shape.get("name") != HIGHLIGHT]
    arrays = {**out, "layout": {**out["layout"], "shapes": shapes}}
    out["layout"]["datarevision"] = hashlib.blake2b(plotly.io.to_json(arrays, validate=False, engine=JSON_ENGINE).encode(),
                                                    digest_size=8).hexdigest()
    return out


def spec_json(fig: go.Figure | dict) -> bytes:
    """:func:`spec` as the UTF-8 JSON the chart element is sent."""
    return plotly.io.to_json(spec(fig), validate=False, engine=JSON_ENGINE).encode()


def plot(fig: go.Figure | dict, where: Any = None, key: str | None = None) -> None:
    """Show ``fig`` across the width of ``where`` (``st`` if None), drawn once in the browser; ``key``
    (else one naming its place) keeps the same element, and so its plot, from run to run."""
    shown = getattr(fig, "_shown_json", None) or spec_json(fig)  # cached figures carry theirs
    plotly_element.show(shown, where, key)


HIDDEN = b'{"hidden": true}'
"""The chart element's data for a chart kept out of sight (ui/plotly_element.js)."""


def hidden_chart(key: str, where: Any = None) -> None:
    """Keep the chart element ``key`` in its place, hidden, in a run that has no figure for it (the
    seq2seq page's attention map of a model without attention). Its plot stays in the browser, so
    the next figure shown there is drawn as a diff of it, not as a new plot (25-90 ms here)."""
    plotly_element.show(HIDDEN, where, key)
