"""What the live class's page helpers share (ui/live_class.py): the session keys, where a page and
slide are, the question as the class stores it, and sending this session's actions."""
from __future__ import annotations

import time
import urllib.parse
from typing import Any

import streamlit as st

from lmcore.teaching.course import LESSON_OF, slide_param
from lmcore.teaching.question import ABSOLUTE, CHOICE, FACTOR, RELATIVE, Question, fmt
from server.live_class import live_classes
from server.live_class_types import (Accepted, OpenQuestion, Refused, Status)
from ui.state import lang, md_text, tr

TEACH = "live_teach"  # the instructor's {"code", "token"}: this session only
SENT = "live_sent"  # the (page, slide) the class was last moved to by this instructor
SEQ = "live_seq"
SHOW_JOIN = "live_show_join"
NOTICE = "live_notice"  # a message to show on the next run: (kind, text)
JOINED = "live_joined"  # the code of the class this student joined
VIEW = "live_view"  # the student's last StudentView
REFUSED = "lmlab_live_refused"  # (question id, message) of the last answer refused, shown until the next send
FOLLOW = "live_follow"
FOLLOW_WIDGET = "lmlab-live-follow"
AT = "live_at"  # where the class last moved this student: (page, slide name)
HERE = "live_here"  # the page this run shows
LOCAL = "live_local_questions"  # question id → this session's Question (for choice labels)
POLL_SECONDS = 2.0  # the instructor's bar (joined count, who)
# A student's live box: a move of the instructor reaches a page within this (plus the page's run):
# issue 37 asks for the new slide within 2 s at p95. One idle poll is one small read (student_poll).
STUDENT_POLL_SECONDS = 1.0
# The projector's answers: a new answer shows within this (plus the run); issue 37 asks for 1 s at p95.
# One session polls it, on a question slide only.
RESULTS_POLL_SECONDS = 0.5
LETTERS = "ABCDEFGHIJKL"


def browser_id() -> str:
    """This browser's id (the owner id of uploads and runs)."""
    from server.jobs import owner_id

    return owner_id()


def message(problem: str, **fields: Any) -> str:
    """The message for a Problem or a Status (their values share the keys)."""
    key = {"closed": "class_closed"}.get(str(problem), str(problem))
    fields.setdefault("code", "")
    return tr(f"live.problem.{key}", **{k: md_text(str(v)) for k, v in fields.items()})


def show(kind: str, text: str, where: Any = None) -> None:
    getattr(where or st, kind)(text)


# ------------------------------------------------------------------------------------------ places
def place_of(page: str | None, slide: int | None) -> tuple[str, str] | None:
    """The class's place as (page, slide name), or None when it is not a slide of the course."""
    lesson = LESSON_OF.get(page or "")
    if lesson is None or slide is None or not 0 <= slide < len(lesson.slides):
        return None
    return page, slide_param(lesson.slides[slide])


def current_place() -> tuple[str, str | None]:
    """Where this run is: the page, and its slide in projector view (else None)."""
    page = st.session_state.get(HERE, "")
    lesson = LESSON_OF.get(page)
    if lesson is None or st.query_params.get("present") != "1":
        return page, None
    return page, st.query_params.get("slide") or slide_param(lesson.slides[0])


def go(place: tuple[str, str], code: str | None = None) -> None:
    params = {"present": "1", "slide": place[1]}
    if code:
        params["class"] = code
    st.switch_page(f"app_pages/{place[0]}.py", query_params=params)


def question_id(q: Question) -> str:
    """The class's id of a question: which slide (``qid``) and which content (``uid``)."""
    return f"{q.qid}@{q.uid}"


def open_question(q: Question) -> OpenQuestion:
    """The question as the class asks it: choices by letter (the same in either language), a
    number's tolerance as an absolute band around the answer."""
    if q.kind == CHOICE:
        letters = tuple(LETTERS[: len(q.choices)])
        return OpenQuestion(question_id(q), "choice", letters[int(q.answer)], choices=letters)
    answer, tol = float(q.answer), q.tolerance
    if tol.kind == ABSOLUTE:
        band = tol.value
    elif tol.kind == RELATIVE:
        band = tol.value * abs(answer)
    elif tol.kind == FACTOR:  # within a factor: the band reaches answer × factor (the server's band is symmetric)
        band = abs(answer) * (tol.value - 1)
    else:
        band = 0.0
    return OpenQuestion(question_id(q), "number", answer, tolerance=max(0.0, band))


def choice_labels(question_id_: str, choices: tuple[str, ...]) -> list[str]:
    """"A · the choice's text" when this session has the question (same content), else the letter."""
    q = st.session_state.get(LOCAL, {}).get(question_id_)
    if q is None or len(q.choices) != len(choices):
        return list(choices)
    return [f"{letter} · {c.render(lang())}" for letter, c in zip(choices, q.choices)]


def answer_text(question_id_: str, kind: str, value: str | None) -> str:
    if value is None:
        return ""
    if kind == "choice":
        labels = dict(zip(LETTERS, choice_labels(question_id_, tuple(LETTERS))))
        q = st.session_state.get(LOCAL, {}).get(question_id_)
        return labels.get(value, value) if q is not None and value in LETTERS[: len(q.choices)] else value
    try:
        return fmt(float(value))
    except ValueError:
        return value


# ------------------------------------------------------------------------------------------ actions
def act(action, code: str | None = None) -> Accepted | Refused:
    """Send an instructor action with this session's token (none in a student's session: refused)."""
    teach = st.session_state.get(TEACH) or {}
    code = code or teach.get("code") or st.session_state.get(JOINED) or ""
    seq = max(int(st.session_state.get(SEQ, 0)) + 1, time.time_ns() // 1000)  # larger than any sent before
    st.session_state[SEQ] = seq
    return live_classes().instructor_action(code, teach.get("token", ""), seq, action)


def _base_url() -> str:
    base = urllib.parse.urlsplit(st.context.url or "http://localhost:8501")
    return f"{base.scheme}://{base.netloc}"


def join_url(code: str) -> str:
    """The students' link: any page of the app with ``?class=CODE``."""
    return f"{_base_url()}/?{urllib.parse.urlencode({'class': code})}"


def start(page: str, slide: int) -> None:
    started = live_classes().start_class(page, slide)
    if isinstance(started, Refused):
        st.session_state[NOTICE] = ("error", message(started.problem))
        return
    st.session_state[TEACH] = {"code": started.code, "token": started.token}
    st.session_state[SENT] = (page, slide)
    st.session_state[SHOW_JOIN] = True


def adopt(code: str, token: str) -> None:
    """An instructor link was opened: keep its token if it is the class's, then open the class's slide."""
    st.query_params.pop("teach", None)
    st.query_params.pop("class", None)
    view = live_classes().projector_view(code, token)
    if view.status is not Status.LIVE:
        text = tr("live.bad_teach", code=md_text(code[:12])) if view.status is Status.NOT_INSTRUCTOR else \
            message(view.status, code=code[:12])
        st.session_state[NOTICE] = ("error", text)
        return
    st.session_state.pop(JOINED, None)
    st.session_state[TEACH] = {"code": view.code, "token": token}
    st.session_state[SENT] = (view.page, view.slide)
    st.session_state[NOTICE] = ("success", tr("live.adopted", code=view.code))
    place = place_of(view.page, view.slide)
    if place is not None:
        go(place)


