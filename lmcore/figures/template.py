"""A figure with its template written into it: the same look, and no ``layout.template`` to send.

Plotly resolves a template when it draws a figure (plotly.js ``Template`` rules):

- ``template.layout`` gives every layout attribute the figure leaves unset; its ``xaxis`` and
  ``yaxis`` those of every x and y axis (``xaxis2`` …, and the axes the traces put on the plot), its
  ``coloraxis`` those of every colour axis;
- ``template.data[type][k % m]`` gives the unset attributes of the k-th trace of that type.

:func:`inline_template` does that beforehand, so the figure draws the same without a template.
Why it matters here: Streamlit 1.67 re-themes every chart just after drawing it and hands Plotly a
copy of the figure; Plotly compares ``layout.template`` by identity, so a figure that carries a
template is computed and drawn twice (tests/test_figure_template.py draws both forms in plotly.js).
"""
from __future__ import annotations

import copy
import re
from typing import Any

# traces drawn on x/y axes: a figure with any of them (or with no trace at all) has those axes
CARTESIAN = {"bar", "box", "candlestick", "contour", "heatmap", "histogram", "histogram2d", "histogram2dcontour",
             "ohlc", "scatter", "scattergl", "violin", "waterfall", "funnel", "image"}
_AXIS = re.compile(r"^(xaxis|yaxis|coloraxis)\d*$")
# Axis attributes whose mere presence in the figure's own input switches a feature on (Plotly tests
# the input, not the template): grid colour → grid, tick colour → tick marks, a minor container →
# minor ticks. Written in, they come with their switch set to what Plotly picks under the template.
_SWITCHES = {"showgrid": ("gridcolor", "gridwidth", "griddash"), "zeroline": ("zerolinecolor", "zerolinewidth"),
             "showline": ("linecolor", "linewidth"), "ticks": ("tickcolor", "ticklen", "tickwidth")}
ORIENTED = {"bar", "box", "violin", "histogram", "funnel", "waterfall"}  # no grid across their categories
MAPS = {"heatmap", "contour", "histogram2d", "histogram2dcontour"}  # tick marks outside by default
SUBPLOTS = {"ternary": "scatterternary", "polar": "scatterpolar", "geo": "scattergeo", "scene": "scatter3d"}
"""Subplot containers and the trace drawn on them: their template part is written in only if used."""


def _under(default: Any, value: Any) -> Any:
    """``value`` with ``default`` filling what it leaves unset (objects merged key by key, the
    figure's own value winning; arrays and plain values taken whole)."""
    if isinstance(default, dict) and isinstance(value, dict):
        out = copy.deepcopy(default)
        for key, v in value.items():
            out[key] = _under(default[key], v) if key in default else v
        return out
    return copy.deepcopy(default) if value is None else value


def _axes(spec: dict) -> dict[str, set[str]]:
    """Every axis the figure draws (named in its layout or used by its traces), by layout key, with
    what its traces make of it: "nogrid" (the category axis of bars), "maps" (a heatmap's axis)."""
    names: dict[str, set[str]] = {key: set() for key in spec.get("layout", {}) if _AXIS.match(key)}
    traces = spec.get("data", [])
    for trace in traces:
        kind = trace.get("type", "scatter")
        if kind not in CARTESIAN:
            continue
        x, y = "xaxis" + trace.get("xaxis", "x")[1:], "yaxis" + trace.get("yaxis", "y")[1:]
        names.setdefault(x, set()), names.setdefault(y, set())
        if kind in ORIENTED:
            alone = "y" if kind == "histogram" else "x"  # the one data array that makes it horizontal
            other = "x" if alone == "y" else "y"
            horizontal = trace.get("orientation", "h" if alone in trace and other not in trace else "v") == "h"
            names[y if horizontal else x].add("nogrid")
        if kind in MAPS:
            names[x].add("maps"), names[y].add("maps")
    if not traces:
        names |= {"xaxis": set(), "yaxis": set()}
    return names


def _axis(default: dict, own: dict, kinds: set[str]) -> dict:
    """One axis: the template's ``default`` under the figure's ``own``, switches made explicit."""
    out = _under({key: v for key, v in default.items() if key != "minor" or "minor" in own}, own)
    for switch, given in _SWITCHES.items():
        if switch in own or not any(key in default for key in given):
            continue  # the figure decides, or the template gives nothing the switch would show
        if switch in default:
            out[switch] = default[switch]
        elif switch == "ticks":
            out[switch] = "outside" if "maps" in kinds or any(key in own for key in given) else ""
        else:
            out[switch] = ("nogrid" not in kinds and switch != "showline") or any(key in own for key in given)
    return out


def inline_template(spec: dict, template: dict) -> dict:
    """``spec`` (a figure as ``fig.to_dict()`` gives it) drawn with ``template`` instead of its own
    template, written out: a new dict whose layout has no ``template`` key."""
    layout = {key: value for key, value in spec.get("layout", {}).items() if key != "template"}
    base = template.get("layout", {})
    kinds = {trace.get("type", "scatter") for trace in spec.get("data", [])}
    for key, default in base.items():
        if key in SUBPLOTS and key not in layout and SUBPLOTS[key] not in kinds:
            continue
        if not _AXIS.match(key):
            layout[key] = _under(default, layout.get(key))
    for name, kinds in _axes(spec).items():
        default = base.get(_AXIS.match(name).group(1))
        if default is not None:
            layout[name] = _axis(default, layout.get(name) or {}, kinds)
    seen: dict[str, int] = {}
    data = []
    for trace in spec.get("data", []):
        kind = trace.get("type", "scatter")
        defaults = template.get("data", {}).get(kind) or [{}]
        k = seen[kind] = seen.get(kind, -1) + 1
        data.append(_under({key: v for key, v in defaults[k % len(defaults)].items() if key != "type"}, trace))
    out = {key: value for key, value in spec.items() if key not in ("data", "layout")}
    return out | {"data": data, "layout": layout}
