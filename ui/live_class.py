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

import time
import urllib.parse
from typing import Any

import streamlit as st

from lmcore.teaching.course import LESSON_OF, slide_param
from lmcore.teaching.question import ABSOLUTE, CHOICE, FACTOR, RELATIVE, Question, fmt
from lmcore.teaching.sheet import md_escape
from server.live_class import live_classes
from server.live_class_types import (Accepted, Advance, Close, OpenQuestion, ProjectorView, Refused, Reset, Reveal,
                                     Status, StudentView)
from ui.state import lang, md_text, tr

TEACH = "live_teach"  # the instructor's {"code", "token"}: this session only
SENT = "live_sent"  # the (page, slide) the class was last moved to by this instructor
SEQ = "live_seq"
SHOW_JOIN = "live_show_join"
NOTICE = "live_notice"  # a message to show on the next run: (kind, text)
JOINED = "live_joined"  # the code of the class this student joined
VIEW = "live_view"  # the student's last StudentView
FOLLOW = "live_follow"
FOLLOW_WIDGET = "lmlab-live-follow"
AT = "live_at"  # where the class last moved this student: (page, slide name)
HERE = "live_here"  # the page this run shows
LOCAL = "live_local_questions"  # question id → this session's Question (for choice labels)
POLL_SECONDS = 2.0
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


def _show(kind: str, text: str, where: Any = None) -> None:
    getattr(where or st, kind)(text)


# ------------------------------------------------------------------------------------------ places
def _place(page: str | None, slide: int | None) -> tuple[str, str] | None:
    """The class's place as (page, slide name), or None when it is not a slide of the course."""
    lesson = LESSON_OF.get(page or "")
    if lesson is None or slide is None or not 0 <= slide < len(lesson.slides):
        return None
    return page, slide_param(lesson.slides[slide])


def _here() -> tuple[str, str | None]:
    """Where this run is: the page, and its slide in projector view (else None)."""
    page = st.session_state.get(HERE, "")
    lesson = LESSON_OF.get(page)
    if lesson is None or st.query_params.get("present") != "1":
        return page, None
    return page, st.query_params.get("slide") or slide_param(lesson.slides[0])


def _go(place: tuple[str, str], code: str | None = None) -> None:
    params = {"present": "1", "slide": place[1]}
    if code:
        params["class"] = code
    st.switch_page(f"app_pages/{place[0]}.py", query_params=params)


def question_id(q: Question) -> str:
    """The class's id of a question: which slide (``qid``) and which content (``uid``)."""
    return f"{q.qid}@{q.uid}"


def _open_question(q: Question) -> OpenQuestion:
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


def _choice_labels(question_id_: str, choices: tuple[str, ...]) -> list[str]:
    """"A · the choice's text" when this session has the question (same content), else the letter."""
    q = st.session_state.get(LOCAL, {}).get(question_id_)
    if q is None or len(q.choices) != len(choices):
        return list(choices)
    return [f"{letter} · {c.render(lang())}" for letter, c in zip(choices, q.choices)]


def _answer_text(question_id_: str, kind: str, value: str | None) -> str:
    if value is None:
        return ""
    if kind == "choice":
        labels = dict(zip(LETTERS, _choice_labels(question_id_, tuple(LETTERS))))
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


def _start(page: str, slide: int) -> None:
    started = live_classes().start_class(page, slide)
    if isinstance(started, Refused):
        st.session_state[NOTICE] = ("error", message(started.problem))
        return
    st.session_state[TEACH] = {"code": started.code, "token": started.token}
    st.session_state[SENT] = (page, slide)
    st.session_state[SHOW_JOIN] = True


def _adopt(code: str, token: str) -> None:
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
    place = _place(view.page, view.slide)
    if place is not None:
        _go(place)


# ------------------------------------------------------------------------------------------ entry hooks
def before_page(page: str) -> None:
    """In ui/entry.py before the page runs: an instructor link, a join link, the student's bar."""
    st.session_state[HERE] = page
    teach = st.query_params.get("teach")
    if teach is not None:
        _adopt(st.query_params.get("class", ""), teach)
    if (notice := st.session_state.pop(NOTICE, None)) is not None:
        _show(*notice)
    if st.session_state.get(TEACH):
        st.query_params.pop("class", None)
        if st.query_params.get("present") != "1":
            st.sidebar.caption(tr("live.normal_view", code=st.session_state[TEACH]["code"]))
        return
    raw = st.query_params.get("class")
    if raw is not None and raw.strip().upper() != st.session_state.get(JOINED):
        _join_card(raw)
    if st.session_state.get(JOINED):
        _student_bar(page)


def after_page() -> None:
    """In ui/entry.py after the page ran: the student's live box (a polling fragment)."""
    if st.session_state.get(JOINED) and not st.session_state.get(TEACH):
        _student_live()


# ------------------------------------------------------------------------------------------ instructor
def projector(deck) -> None:
    """In the deck's projector view (ui/teaching.py, after its slide bar): start a class, or move the
    class to this slide and show its bar."""
    teach = st.session_state.get(TEACH)
    place = (deck.page, deck.slides.index(deck.current))
    if teach is None and st.session_state.get(JOINED):
        return  # a student in a class starts none
    if teach is None:
        where = deck._share if deck._share is not None else st.sidebar
        where.button(tr("live.start"), key="lmlab-live-start", icon=":material/podcasts:", help=tr("live.start_help"),
                     on_click=_start, args=place, type="primary")
        return
    if st.session_state.get(SENT) != place:
        result = act(Advance(*place))
        if result.ok:
            st.session_state[SENT] = place
            st.session_state[SHOW_JOIN] = False  # the class has begun: the slide gets the room
        else:
            st.warning(message(result.problem))
    _instructor_bar()


@st.fragment(run_every=POLL_SECONDS)
def _instructor_bar() -> None:
    teach = st.session_state.get(TEACH)
    if teach is None:
        return
    view = live_classes().projector_view(teach["code"], teach["token"])
    if view.status in (Status.CLOSED, Status.NO_SUCH_CLASS, Status.NOT_INSTRUCTOR):
        st.session_state.pop(TEACH, None)
        st.session_state[NOTICE] = ("info", tr("live.ended") if view.status is not Status.NOT_INSTRUCTOR
                                    else message(view.status))
        st.rerun(scope="app")
    if view.status is Status.PAUSED:
        st.warning(message(Status.PAUSED))
        return
    code = view.code
    with st.container(key="lmlab-live-bar"):
        text, who, join, link, end = st.columns([5, 2, 2, 2, 2], vertical_alignment="center")
        text.markdown(f":red[:material/podcasts:] **{tr('live.bar', code=code, joined=view.joined)}**")
        box = who.popover(tr("live.who"), width="stretch")
        for name in view.nicknames:
            box.text(name)  # plain text, as typed
        box.caption(tr("live.anonymous_count", n=view.joined - len(view.nicknames)))
        showing = st.session_state.get(SHOW_JOIN, False)
        if join.button(tr("live.hide_join") if showing else tr("live.show_join"), key="lmlab-live-join-toggle",
                       width="stretch"):
            st.session_state[SHOW_JOIN] = showing = not showing
        private = link.popover(tr("live.teach_link"), width="stretch")
        private.caption(tr("live.teach_link_help"))
        private.text(f"{join_url(code)}&{urllib.parse.urlencode({'teach': teach['token']})}")
        if end.button(tr("live.end"), key="lmlab-live-end", width="stretch"):
            result = act(Close())
            if not result.ok:
                st.error(message(result.problem))
            else:
                st.session_state.pop(TEACH, None)
                st.session_state[NOTICE] = ("info", tr("live.ended"))
                st.rerun(scope="app")
    if showing:
        _join_panel(code)


def _join_panel(code: str) -> None:
    from ui.teaching_share import qr_png

    url = join_url(code)
    with st.container(border=True, key="lmlab-live-join-panel"):
        qr, words = st.columns([1, 2], vertical_alignment="center")
        qr.image(qr_png(url, 8), width=300)
        words.markdown(f"### {tr('live.join_at')}")
        words.text(url)
        words.markdown(f"## {tr('live.code')}: `{code}`")


def question_slide(deck, q: Question, title: str) -> bool:
    """A question slide in projector view during a live class: the instructor's slide asks it and
    shows the answers (True); a following student's slide shows the question, answered in the live
    box below (True). Otherwise False: the deck shows its own predict-then-reveal form."""
    qid = question_id(q)
    teach = st.session_state.get(TEACH)
    if teach is not None:
        _prompt(q, title)
        view = live_classes().projector_view(teach["code"], teach["token"])
        if view.status is Status.LIVE and (view.question is None or view.question.question_id != qid):
            result = act(_open_question(q))
            if not result.ok:
                st.warning(message(result.problem))
        _results(q, (deck.page, deck.slides.index(deck.current)))
        view = live_classes().projector_view(teach["code"], teach["token"])
        if view.question is not None and view.question.question_id == qid and view.question.revealed:
            st.markdown(f"**{md_escape(tr('teaching.quiz.answer', answer=q.answer_text(lang())))}**")
            st.markdown(md_escape(q.reveal.render(lang())))
            from lmcore.teaching.explain import explain_figure

            deck.chart(explain_figure(q, lang()), f"answer-{q.qid}")
        return True
    if not st.session_state.get(JOINED) or not st.session_state.get(FOLLOW, True):
        return False
    view = st.session_state.get(VIEW)
    if view is None or _place(view.page, view.slide) != (deck.page, slide_param(deck.current)):
        return False
    st.session_state.setdefault(LOCAL, {})[qid] = q
    _prompt(q, title, letters=False)
    st.caption(tr("live.answer_below"))
    return True


def _prompt(q: Question, title: str, letters: bool = True) -> None:
    language = lang()
    st.markdown(f"**{md_escape(title)}** · {md_escape(tr(f'teaching.topic.{q.topic}'))}")
    st.markdown(md_escape(q.prompt.render(language)))
    if q.table is not None:
        header, rows = q.table.render(language)
        st.markdown("\n".join(["| " + " | ".join(md_escape(h) for h in header) + " |", "|" + "---|" * len(header)]
                              + ["| " + " | ".join(md_escape(c) for c in row) + " |" for row in rows]))
    if q.kind == CHOICE and letters:  # (a student's answer box lists them)
        st.markdown("  \n".join(f"**{letter}** · {md_escape(c.render(language))}"
                                for letter, c in zip(LETTERS, q.choices)))
    else:
        st.caption(q.tolerance.describe(language))


@st.fragment(run_every=POLL_SECONDS)
def _results(q: Question, place: tuple[str, int]) -> None:
    teach = st.session_state.get(TEACH)
    if teach is None:
        return
    view = live_classes().projector_view(teach["code"], teach["token"])
    if view.status is Status.PAUSED:
        st.warning(message(Status.PAUSED))
        return
    if view.status is Status.LIVE and (view.question is None or view.question.question_id != question_id(q)) \
            and (view.page, view.slide) == place:  # the run that should have asked it was cut short: ask it now
        if act(_open_question(q)).ok:
            view = live_classes().projector_view(teach["code"], teach["token"])
    if view.question is None or view.question.question_id != question_id(q):
        return
    with st.container(border=True, key="lmlab-live-results"):
        st.markdown(f"**{tr('live.answered', answered=view.answered, joined=view.joined)}**")
        if view.answer is not None and view.share_correct is not None:
            st.markdown(f"**{tr('live.share_correct', answer=_shown_answer(q, view), share=f'{view.share_correct:.0%}')}**")
        fig = _figure(q, view)
        if fig is not None:
            from ui.charts import plot

            plot(fig, key="lmlab-live-figure")
        else:
            st.caption(tr("live.no_answers"))
        reveal, again = st.columns(2)
        if reveal.button(tr("live.reveal"), key="lmlab-live-reveal", type="primary", disabled=view.question.revealed,
                         width="stretch"):
            _then_rerun(act(Reveal()))
        if again.button(tr("live.reset"), key="lmlab-live-reset", width="stretch"):
            _then_rerun(act(Reset()))


def _then_rerun(result: Accepted | Refused) -> None:
    if not result.ok:
        st.error(message(result.problem))
        return
    st.rerun(scope="app")


def _shown_answer(q: Question, view: ProjectorView) -> str:
    if q.kind == CHOICE:
        return f"{view.answer} · {q.answer_text(lang())}"
    return fmt(float(view.answer))


def _figure(q: Question, view: ProjectorView):
    """The answers' figure in projector fonts, rebuilt only when the answers change (this session
    keeps the last)."""
    from lmcore.figures.live import live_choices, live_histogram

    if view.answered == 0:
        return None
    key = (view.stamp, view.answered, str(view.histogram), str(view.choice_counts), lang())
    kept = st.session_state.get("live_figure")
    if kept is not None and kept[0] == key:
        return kept[1]
    if view.choice_counts is not None:
        letters = list(view.choice_counts)
        labels = [f"{letter} · {c.render(lang())}" if len(q.choices) == len(letters) else letter
                  for letter, c in zip(letters, q.choices or [None] * len(letters))]
        right = letters.index(view.answer) if view.answer in letters else None
        fig = live_choices(labels, [view.choice_counts[k] for k in letters], right, lang())
    else:
        h = view.histogram
        fig = live_histogram(h.edges, h.counts, h.band, float(view.answer) if view.answer else None, lang())
    from lmcore.teaching.projector import projector_figure

    fig = projector_figure(fig, height=400)
    st.session_state["live_figure"] = (key, fig)
    return fig


# ------------------------------------------------------------------------------------------ student
def _join_card(raw: str) -> None:
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
    for key in (JOINED, VIEW, AT):
        st.session_state.pop(key, None)
    st.query_params.pop("class", None)


def _follow_changed() -> None:
    st.session_state[FOLLOW] = bool(st.session_state.get(FOLLOW_WIDGET))
    st.session_state.pop(AT, None)  # back on: go to the instructor's slide


def _student_bar(page: str) -> None:
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
    target = _place(view.page, view.slide)
    if target is None:
        return
    here = _here()
    if here == target:
        st.session_state[AT] = target
        return
    at = st.session_state.get(AT)
    if at is None or here == at:
        st.session_state[AT] = target
        _go(target, code)
        return
    st.session_state[FOLLOW] = False  # the student went somewhere else: exploring


@st.fragment(run_every=POLL_SECONDS)
def _student_live() -> None:
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
    target = _place(view.page, view.slide) if view is not None else None
    if view is not None and view.status is Status.LIVE and st.session_state.get(FOLLOW, True) \
            and target is not None and target != _here():  # every poll: a move cut short is made again
        st.session_state[AT] = target
        _go(target, code)
    with st.container(border=True, key="lmlab-live-box"):
        _student_question(code, bid, view)


def _student_question(code: str, bid: str, view: StudentView) -> None:
    if view is None or view.status is Status.PAUSED:
        st.warning(message(Status.PAUSED))
        return
    q = view.question
    place = _place(view.page, view.slide)
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
            labels = _choice_labels(q.question_id, q.choices)
            value = st.radio(tr("live.your_answer"), q.choices, index=None, key=f"lmlab-live-in-{q.question_id}",
                             format_func=dict(zip(q.choices, labels)).get)
        else:
            value = st.text_input(tr("live.your_answer"), max_chars=40, placeholder=tr("live.number_placeholder"),
                                  key=f"lmlab-live-in-{q.question_id}")
            # not the band's width: for a relative tolerance it would give the answer away (the slide says the rule)
        sent = st.form_submit_button(tr("live.send"), type="primary", width="stretch")
    if sent:
        result = live_classes().answer(code, bid, q.question_id, value or "")
        if isinstance(result, Refused):
            st.error(message(result.problem))
        else:
            view = st.session_state[VIEW] = live_classes().student_view(code, bid)
    if view.own_answer is not None:
        st.info(tr("live.sent", answer=md_text(_answer_text(q.question_id, q.kind, view.own_answer))))


def _student_result(q, view: StudentView) -> None:
    st.markdown(f"**{tr('live.revealed', answer=md_text(_answer_text(q.question_id, q.kind, view.answer)))}**")
    mine = md_text(_answer_text(q.question_id, q.kind, view.own_answer))
    if view.own_answer is None:
        st.info(tr("live.no_own_answer"))
    elif view.own_correct:
        st.success(tr("live.right", answer=mine))
    else:
        st.error(tr("live.wrong", answer=mine))
