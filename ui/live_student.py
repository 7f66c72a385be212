"""The student's side of a live class (ui/live_class.py): the join card, the bar with the follow
switch, and the polling box with the open question's answer form and, after the reveal, the result."""
from __future__ import annotations


import streamlit as st

from server.live_class import live_classes
from server.live_class_types import (Refused, Status, StudentView)
from ui.state import md_text, tr
from ui.live_common import (AT, FOLLOW, FOLLOW_WIDGET, JOINED, LOCAL, NOTICE, REFUSED, STUDENT_POLL_SECONDS, VIEW, answer_text,
                            browser_id, choice_labels, go, current_place, message, place_of)


# ------------------------------------------------------------------------------------------ student
def join_card(raw: str) -> None:
    bid = browser_id()
    view = live_classes().student_view(raw, bid)
    if view.status is Status.LIVE:  # joined before (a reload): carry on
        _joined(view)
        return
    if view.status is not Status.NOT_JOINED:
        st.warning(message(view.status, code=raw.strip()[:12] or "?"))
        return
    with st.container(border=True, key="lmlab-live-join"):
        st.markdown(f"**{tr('live.join.title', code=view.code)}**")
        with st.form(key="lmlab-live-join-form", border=False):
            name = st.text_input(tr("live.join.nickname"), max_chars=24, placeholder=tr("live.join.placeholder"),
                                 key="lmlab-live-nickname")
            go = st.form_submit_button(tr("live.join.button"), type="primary", width="stretch")
    if not go:
        return
    result = live_classes().join(view.code, bid, name.strip() or None)
    if isinstance(result, Refused):
        st.error(message(result.problem, code=view.code))
        return
    _joined(live_classes().student_view(view.code, bid))
    st.rerun()


def _joined(view: StudentView) -> None:
    st.session_state[JOINED] = view.code
    st.session_state[VIEW] = view
    st.session_state[FOLLOW] = True
    st.session_state.pop(AT, None)


def _leave() -> None:
    for key in (JOINED, VIEW, AT, REFUSED):
        st.session_state.pop(key, None)
    st.query_params.pop("class", None)


def _follow_changed() -> None:
    st.session_state[FOLLOW] = bool(st.session_state.get(FOLLOW_WIDGET))
    st.session_state.pop(AT, None)  # back on: go to the instructor's slide


def student_bar(page: str) -> None:
    code = st.session_state[JOINED]
    view = st.session_state.get(VIEW)
    if view is None or view.stamp is None:
        view = st.session_state[VIEW] = live_classes().student_view(code, browser_id())
    st.query_params["class"] = code
    if st.session_state.get(FOLLOW, True) and view.status is Status.LIVE:
        _follow(view, code)
    with st.container(border=True, key="lmlab-live-student"):
        words, switch = st.columns([3, 2], vertical_alignment="center")
        words.markdown(f":red[:material/podcasts:] **{tr('live.joined', code=code)}**")
        if view.nickname:
            words.text(f"{tr('live.you_are')} {view.nickname}")  # plain text, as typed
        st.session_state[FOLLOW_WIDGET] = st.session_state.get(FOLLOW, True)
        switch.toggle(tr("live.follow"), key=FOLLOW_WIDGET, on_change=_follow_changed, help=tr("live.follow_help"))
        switch.button(tr("live.leave"), key="lmlab-live-leave", on_click=_leave, type="tertiary")
        if not st.session_state.get(FOLLOW, True):
            st.caption(tr("live.exploring"))


def _follow(view: StudentView, code: str) -> None:
    """Before the page: open the instructor's slide; a student who moved away stops following."""
    target = place_of(view.page, view.slide)
    if target is None:
        return
    here = current_place()
    if here == target:
        st.session_state[AT] = target
        return
    at = st.session_state.get(AT)
    if at is None or here == at:
        st.session_state[AT] = target
        go(target, code)
        return
    st.session_state[FOLLOW] = False  # the student went somewhere else: exploring


@st.fragment(run_every=STUDENT_POLL_SECONDS)
def student_live() -> None:
    code = st.session_state.get(JOINED)
    if not code:
        return
    bid, old = browser_id(), st.session_state.get(VIEW)
    new = live_classes().student_poll(code, bid, old.stamp if old is not None else None)
    view = old if new is None else new
    if new is not None:
        st.session_state[VIEW] = new
        if new.status in (Status.CLOSED, Status.NO_SUCH_CLASS, Status.NOT_JOINED):
            _leave()
            st.session_state[NOTICE] = ("info", message(new.status, code=code))
            st.rerun(scope="app")
    target = place_of(view.page, view.slide) if view is not None else None
    if view is not None and view.status is Status.LIVE and st.session_state.get(FOLLOW, True) \
            and target is not None and target != current_place():  # every poll: a move cut short is made again
        st.session_state[AT] = target
        go(target, code)
    with st.container(border=True, key="lmlab-live-box"):
        _student_question(code, bid, view)


def _student_question(code: str, bid: str, view: StudentView) -> None:
    if view is None or view.status is Status.PAUSED:
        st.warning(message(Status.PAUSED))
        return
    q = view.question
    place = place_of(view.page, view.slide)
    if q is None or (place is not None and place[1].startswith("q-") and place[1][2:] != q.question_id.split("@")[0]):
        st.caption(tr("live.waiting"))  # no question, or the instructor's next one is about to open
        return
    st.markdown(f"**{tr('live.question')}**")
    if q.question_id not in st.session_state.get(LOCAL, {}):
        st.caption(tr("live.question_on_screen"))
    if q.revealed:
        _student_result(q, view)
        return
    with st.form(key=f"lmlab-live-answer-{q.question_id}", border=False):
        if q.kind == "choice":
            labels = choice_labels(q.question_id, q.choices)
            value = st.radio(tr("live.your_answer"), q.choices, index=None, key=f"lmlab-live-in-{q.question_id}",
                             format_func=dict(zip(q.choices, labels)).get)
        else:
            value = st.text_input(tr("live.your_answer"), max_chars=40, placeholder=tr("live.number_placeholder"),
                                  key=f"lmlab-live-in-{q.question_id}")
            # not the band's width: for a relative tolerance it would give the answer away (the slide says the rule)
        sent = st.form_submit_button(tr("live.send"), type="primary", width="stretch")
    if sent:
        result = live_classes().answer(code, bid, q.question_id, value or "")
        if isinstance(result, Refused):  # kept until the next send: the next poll (a second later) redraws the box
            st.session_state[REFUSED] = (q.question_id, message(result.problem))
        else:
            st.session_state.pop(REFUSED, None)
            view = st.session_state[VIEW] = live_classes().student_view(code, bid)
    refused = st.session_state.get(REFUSED)
    if refused is not None and refused[0] == q.question_id:
        st.error(refused[1])
    if view.own_answer is not None:
        st.info(tr("live.sent", answer=md_text(answer_text(q.question_id, q.kind, view.own_answer))))


def _student_result(q, view: StudentView) -> None:
    st.markdown(f"**{tr('live.revealed', answer=md_text(answer_text(q.question_id, q.kind, view.answer)))}**")
    mine = md_text(answer_text(q.question_id, q.kind, view.own_answer))
    if view.own_answer is None:
        st.info(tr("live.no_own_answer"))
    elif view.own_correct:
        st.success(tr("live.right", answer=mine))
    else:
        st.error(tr("live.wrong", answer=mine))

