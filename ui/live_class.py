"""A live class in the pages (issue 37): the instructor's panel in projector view and the student's
join card, live bar and answer box. The class itself is server/live_class.py; this module only
draws it and sends the session's actions.

The instructor
--------------
In projector view the "share" popover of the slide bar offers "Start a live class". The class's
instructor token is kept in this session's state only: the page shows the join link and QR code
(``?class=CODE``), and, in a closed popover, the instructor's own link ``?class=CODE&teach=TOKEN``
(to take the class over after a reload or on another device: opening it checks the token, keeps it
in the session and removes it from the address bar, which the projector shows). Moving to another
slide sends :class:`Advance`; a question slide sends :class:`OpenQuestion` with the question's answer
(it stays on the server until Reveal). A fragment polls the projector view: joined and answered
counts, the distribution of the answers, Reveal, Ask again, End.

The student
-----------
A page opened with ``?class=CODE`` shows a join card (an optional nickname, shown as plain text).
Once joined, a bar above the page says so with a "follow the instructor" switch, and a fragment
after the page polls ``student_poll`` (one small read when nothing changed): while following, a
new place of the instructor opens that page and slide in projector view. A student who moves
elsewhere stops following (the switch brings them back). The open question's answer box is in that
fragment; after the reveal it shows the answer and the student's own result.

The browser's id is the owner id of server/jobs.py (from the XSRF cookie): a reload finds the class
again.
"""
from __future__ import annotations


import streamlit as st

from ui.state import tr
from ui.live_common import HERE, JOINED, NOTICE, TEACH, adopt, show
from ui.live_instructor import projector, question_slide  # noqa: F401 - called by ui/teaching.py
from ui.live_student import join_card, student_bar, student_live


# ------------------------------------------------------------------------------------------ entry hooks
def before_page(page: str) -> None:
    """In ui/entry.py before the page runs: an instructor link, a join link, the student's bar."""
    st.session_state[HERE] = page
    teach = st.query_params.get("teach")
    if teach is not None:
        adopt(st.query_params.get("class", ""), teach)
    if (notice := st.session_state.pop(NOTICE, None)) is not None:
        show(*notice)
    if st.session_state.get(TEACH):
        st.query_params.pop("class", None)
        if st.query_params.get("present") != "1":
            st.sidebar.caption(tr("live.normal_view", code=st.session_state[TEACH]["code"]))
        return
    raw = st.query_params.get("class")
    if raw is not None and raw.strip().upper() != st.session_state.get(JOINED):
        join_card(raw)
    if st.session_state.get(JOINED):
        student_bar(page)


def after_page() -> None:
    """In ui/entry.py after the page ran: the student's live box (a polling fragment)."""
    if st.session_state.get(JOINED) and not st.session_state.get(TEACH):
        student_live()


