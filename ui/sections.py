"""A page in parts: a tab per part, and only the open part runs, so only its charts reach the browser.

A long page drew every chart at its first open (4–9 Plotly charts: 2.5–3.5 s of Chromium's time on
this machine, issue 11); in parts it draws the first part's, and opening a tab runs that part alone.
The address is the only record of the open part (``?part=``): every run opens the part it names,
and a click on a tab writes the address (before the run), so a shared link, Back and Forward open
the same tab.

The open part is drawn under the tab bar, in a container of its own, and the tabs' panels stay
empty: in a panel, every change inside the part (each move of a control there) made the browser
draw the tab bar again, its collection of tabs included (paired runs, median move: beam width
127 → 117 ms, the gradients' scale 119 → 113 ms).

Streamlit drops the state of a widget that a run does not draw. A control inside a tab is drawn with
``persist_state="page"`` (Streamlit's own keeping: the value outlives the runs that do not draw it
and comes back with the widget, set once), so a slider moved in one tab still has its value when the
student comes back. Writing the value back at every run (``st.session_state[k] = st.session_state[k]``,
what ``keep`` does) sends the widget as a value the script set each time, and the browser then draws
it a second time: the n-gram page's order slider re-rendered ~660 of a move's ~5,500 components after
the chart was drawn. ``keep`` is left for what has no ``persist_state`` (an expander's open state).
Only widgets whose range never changes are kept: a kept value is checked against the widget's range
when it is drawn again, and a slider over "the units of this model" or "the positions of this
sentence" may have a new one by then (such a widget starts again from its default, as on a new page).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import streamlit as st

from lmcore.teaching.course import part_label_key
from ui.navigation import PARTS
from ui.state import query_param, set_query_params, tr


def keep_widget_values(keys: Sequence[str]) -> None:
    """Write back the values of the widgets ``keys`` (those Session State holds). Call it before any of
    them is drawn in the run: the keys are those of widgets inside the tabs."""
    for key in keys:
        if key in st.session_state:
            st.session_state[key] = st.session_state[key]


def _tab_to_address(key: str, names: Sequence[str], labels: Sequence[str]) -> None:
    """A tab was clicked: its part goes to the address, which the run then reads."""
    label = st.session_state.get(key)
    if label in labels:
        st.query_params["part"] = names[list(labels).index(label)]


def part_tabs(page: str) -> str:
    """The tab bar ``parts.<page>.<name>`` (:func:`part_label_key`; names: :data:`ui.navigation.PARTS`)
    alone; returns the name of the part the address names (``?part=``, else the first), the open tab:
    the part to run under the bar (:func:`show_part`)."""
    names = list(PARTS[page])
    labels = [tr(part_label_key(page, name)) for name in names]
    key = f"part_{page}"
    wanted = query_param("part", names[0], choices=names)
    set_query_params(part=wanted)  # a bad or missing part: the address names the one shown
    st.session_state[key] = labels[names.index(wanted)]  # the address decides, not the last click
    st.tabs(labels, key=key, on_change=_tab_to_address, args=(key, names, labels))
    return wanted


def show_part(page: str, parts: Mapping[str, Callable[[], object]], name: str) -> None:
    """Runs the part ``name`` of ``parts`` (their names: :data:`ui.navigation.PARTS`) under the tab bar,
    not in its panel."""
    if tuple(parts) != PARTS[page]:
        raise KeyError(f"{page}'s parts {list(parts)} are not ui.navigation.PARTS[{page!r}]")
    with st.container(key=f"part_body_{page}"):
        parts[name]()
