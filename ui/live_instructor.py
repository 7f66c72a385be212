"""The instructor's side of a live class (ui/live_class.py): start it from the projector view, the
bar with the join link and QR code, a question slide's answers, Reveal, Ask again, End."""
from __future__ import annotations

import urllib.parse

import streamlit as st

from lmcore.teaching.course import slide_param
from lmcore.teaching.question import CHOICE, Question, fmt
from lmcore.teaching.sheet import md_escape
from server.live_class import live_classes
from server.live_class_types import (Accepted, Advance, Close, ProjectorView, Refused, Reset, Reveal,
                                     Status)
from ui.state import lang, tr
from ui.question_text import question_statement
from ui.live_common import (FOLLOW, JOINED, LETTERS, LOCAL, NOTICE, POLL_SECONDS, RESULTS_POLL_SECONDS, SENT, SHOW_JOIN, TEACH, VIEW, act,
                            join_url, message, open_question, place_of, question_id, start)


ANSWERS_HEIGHT = 290  # px: the answers' chart beside the question, with Reveal above a 720 px screen's fold (with room for a two-line slide bar)


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
                     on_click=start, args=place, type="primary")
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
        # side by side, so that the class's answers and Reveal are on the screen (at 1280×720, below
        # the question's table they were under the fold); on a narrow screen the columns stack
        statement, answers = st.columns(2, gap="large")
        with statement:
            _prompt(q, title)
        view = live_classes().projector_view(teach["code"], teach["token"])
        if view.status is Status.LIVE and (view.question is None or view.question.question_id != qid):
            result = act(open_question(q))
            if not result.ok:
                statement.warning(message(result.problem))
        with answers:
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
    if view is None or place_of(view.page, view.slide) != (deck.page, slide_param(deck.current)):
        return False
    st.session_state.setdefault(LOCAL, {})[qid] = q
    _prompt(q, title, letters=False)
    st.caption(tr("live.answer_below"))
    return True


def _prompt(q: Question, title: str, letters: bool = True) -> None:
    language = lang()
    question_statement(q, title)
    if q.kind != CHOICE:
        st.caption(q.tolerance.describe(language))
    elif letters:  # (a student's answer box lists them)
        st.markdown("  \n".join(f"**{letter}** · {md_escape(c.render(language))}"
                                for letter, c in zip(LETTERS, q.choices)))


@st.fragment(run_every=RESULTS_POLL_SECONDS)
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
        if act(open_question(q)).ok:
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

    fig = projector_figure(fig, height=ANSWERS_HEIGHT)
    st.session_state["live_figure"] = (key, fig)
    return fig


