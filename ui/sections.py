"""A page in parts: a tab per part, and only the open part runs, so only its charts reach the browser.

A long page drew every chart at its first open (4–9 Plotly charts: 2.5–3.5 s of Chromium's time on
this machine, issue 11); in parts it draws the first part's, and opening a tab runs that part alone.
The open part is in the URL (``?part=``), so a shared link opens the same tab.

Streamlit drops the state of a widget that a run does not draw: every run first writes back the
values of the page's ``keep`` widgets (the documented way to keep them), so a slider moved in one tab
still has its value when the student comes back. Only widgets whose range never changes are kept: a
value written back is checked against the widget's range when it is drawn again, and a slider over
"the units of this model" or "the positions of this sentence" may have a new one by then (such a
widget starts again from its default, as on a new page).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import streamlit as st

from ui.navigation import PARTS
from ui.state import query_param, set_query_params, tr


def keep_widget_values(keys: Sequence[str]) -> None:
    """Write back the values of the widgets ``keys`` (those Session State holds). Call it before any of
    them is drawn in the run: the keys are those of widgets inside the tabs."""
    for key in keys:
        if key in st.session_state:
            st.session_state[key] = st.session_state[key]


def show_parts(page: str, parts: Mapping[str, Callable[[], object]], keep: Sequence[str] = (),
               whole: bool = False) -> str | None:
    """Tabs ``parts.<page>.<name>`` over the page (names: :data:`ui.navigation.PARTS`); runs the open
    part inside its tab and returns its name. ``whole`` (projector view: its slides show one section
    at a time) runs every part in turn."""
    if whole:
        for run in parts.values():
            run()
        return None
    names = list(parts)
    if tuple(names) != PARTS[page]:
        raise KeyError(f"{page}'s parts {names} are not ui.navigation.PARTS[{page!r}]")
    keep_widget_values(keep)
    labels = [tr(f"parts.{page}.{name}") for name in names]
    key = f"part_{page}"
    if st.session_state.get(key) not in labels:  # first open (a link's part), or the language changed
        st.session_state[key] = labels[names.index(query_param("part", names[0], choices=names))]
    tabs = st.tabs(labels, key=key, on_change="rerun")  # a fixed default: the widget keeps its identity
    for name, tab in zip(names, tabs):
        if tab.open:
            set_query_params(part=name)
            with tab:
                parts[name]()
            return name
    return None
