"""A page in parts: a bar of parts, and only the open part runs, so only its charts reach the browser.

A long page drew every chart at its first open (4–9 Plotly charts: 2.5–3.5 s of Chromium's time on
this machine, issue 11); in parts it draws the first part's, and opening a part runs that part alone.
The address is the only record of the open part (``?part=``): every run opens the part it names,
and a click on the bar writes the address (before the run), so a shared link, Back and Forward open
the same part.

The bar is a segmented control (one part always chosen), not ``st.tabs``: the open part is drawn
under it, in a container of its own. Tabs are a block, and Streamlit 1.67's frontend renders every
block again at each of the three or four updates a run makes, the tabs' collection of labels
included (about 130 components an update on the decoding page), even in a run of a fragment they
are not in; an unchanged widget is not rendered again. Paired runs (30 moves, median): n-gram order
99 → 89 ms, beam width 107 → 102 ms. (Earlier, with the part in a tab's panel, every move inside
it also drew the tab bar again: beam width 127 → 117 ms once the part moved out of it.) On a
phone the bar wraps to a second and third row, so every part's name is in view.

Streamlit drops the state of a widget that a run does not draw. A control inside a part is drawn with
``persist_state="page"`` (Streamlit's own keeping: the value outlives the runs that do not draw it
and comes back with the widget, set once), so a slider moved in one part still has its value when the
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
    them is drawn in the run: the keys are those of widgets inside the parts."""
    for key in keys:
        if key in st.session_state:
            st.session_state[key] = st.session_state[key]


def _part_to_address(key: str, names: Sequence[str], labels: Sequence[str]) -> None:
    """A part was clicked: it goes to the address, which the run then reads."""
    label = st.session_state.get(key)
    if label in labels:
        st.query_params["part"] = names[list(labels).index(label)]


def part_bar(page: str) -> str:
    """The bar of parts ``parts.<page>.<name>`` (:func:`part_label_key`; names: :data:`ui.navigation.PARTS`)
    alone; returns the name of the part the address names (``?part=``, else the first), the open one:
    the part to run under the bar (:func:`show_part`)."""
    names = list(PARTS[page])
    labels = [tr(part_label_key(page, name)) for name in names]
    key = f"part_{page}"
    wanted = query_param("part", names[0], choices=names)
    set_query_params(part=wanted)  # a bad or missing part: the address names the one shown
    st.session_state[key] = labels[names.index(wanted)]  # the address decides, not the last click
    st.segmented_control(tr("parts.bar"), labels, required=True, key=key, label_visibility="collapsed",
                         on_change=_part_to_address, args=(key, names, labels))
    return wanted


def show_part(page: str, parts: Mapping[str, Callable[[], object]], name: str) -> None:
    """Runs the part ``name`` of ``parts`` (their names: :data:`ui.navigation.PARTS`) under the bar,
    not in its panel."""
    if tuple(parts) != PARTS[page]:
        raise KeyError(f"{page}'s parts {list(parts)} are not ui.navigation.PARTS[{page!r}]")
    with st.container(key=f"part_body_{page}"):
        parts[name]()
