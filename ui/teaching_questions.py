"""A page's predict-then-reveal questions in Streamlit (ui/teaching.py's ``Deck.questions`` shows
them): the live inputs they are drawn from, cached per page, corpus, settings and seed; each question
with its table and answer box; after Reveal, right or wrong, the answer, the working and the figure
that explains it. The class score is kept in session state."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import streamlit as st

from lmcore.teaching import LessonInputs, Question, parse_number, topic_questions
from lmcore.teaching.course import LESSON_OF
from lmcore.teaching.explain import explain_figure
from lmcore.teaching.question import CHOICE, fmt
from lmcore.teaching.sheet import md_escape
from server.models import ngram_counts
from ui import live_class
from ui.teaching_share import SEED_MAX, quiz_seed
from ui.question_text import question_statement
from ui.state import corpus_name, current_corpus, lang, set_query_params, tr

if TYPE_CHECKING:
    from ui.teaching import Deck

SCORE = "teaching_score"
ANSWERS = "teaching_answers"


def lesson_inputs(page: str, **settings: Any) -> LessonInputs:
    """The live corpus and settings the questions are drawn from."""
    corpus = current_corpus()
    train = corpus.mapped("train")
    counts = ngram_counts(corpus) if train else None
    held_out = corpus.mapped("test") or corpus.mapped("valid")
    return LessonInputs(counts, held_out, corpus_name(corpus), source_corpus=corpus, **settings)


@st.cache_data(show_spinner=False, max_entries=64)
def _questions(page: str, key: str, settings: tuple, seed: int, _inputs: LessonInputs) -> list[Question]:
    return [q for topic in LESSON_OF[page].topics for q in topic_questions(topic, _inputs, seed)]


def page_questions(page: str, inputs: LessonInputs) -> list[Question]:
    """The page's questions for this corpus, settings and seed (``?qseed=``), cached."""
    seed = quiz_seed()
    return _questions(page, current_corpus().key, inputs.key(), seed, inputs)


def predict_then_reveal(deck: Deck, questions: list[Question], number: str | None = None) -> None:
    """Each question with its table and an answer box; after Reveal: right/wrong, the answer, the
    working and the figure that explains it. The class score is kept in session state."""
    if deck.projector and number is not None and len(questions) == 1 and live_class.question_slide(deck, questions[0], number):
        return  # a live class asks it (ui/live_class.py)
    score = st.session_state.setdefault(SCORE, {"answered": 0, "right": 0})
    if not questions:
        st.info(tr("teaching.quiz.none"))
    for i, q in enumerate(questions, 1):
        with st.container(border=True):
            _question(deck, q, number or tr("teaching.quiz.question_n", i=i))
    st.caption(tr("teaching.quiz.score", right=score["right"], answered=score["answered"]))
    if st.button(tr("teaching.quiz.new"), key=f"lmlab-new-{number or 'all'}"):
        set_query_params(qseed=(quiz_seed() + 1) % (SEED_MAX + 1))
        st.rerun()


def _question(deck: Deck, q: Question, title: str) -> None:
    language = lang()
    question_statement(q, title)
    answers = st.session_state.setdefault(ANSWERS, {})
    record = answers.get(q.uid)
    if record is None:
        with st.form(key=f"lmlab-quiz-{q.uid}"):
            if q.kind == CHOICE:
                labels = [c.render(language) for c in q.choices]
                raw = st.radio(tr("teaching.quiz.your_answer"), range(len(labels)), index=None,
                               format_func=lambda i: labels[i], key=f"lmlab-in-{q.uid}")
            else:
                raw = st.text_input(tr("teaching.quiz.your_answer"), placeholder=tr("teaching.quiz.number_placeholder"),
                                    key=f"lmlab-in-{q.uid}", max_chars=40)
            st.caption(q.tolerance.describe(language) if q.kind != CHOICE else "")
            submitted = st.form_submit_button(tr("teaching.quiz.reveal"), type="primary")
        if not submitted:
            return
        response = raw if q.kind == CHOICE else (parse_number(raw) if raw and raw.strip() else None)
        if q.kind != CHOICE and raw and raw.strip() and response is None:
            st.warning(tr("teaching.quiz.bad_number", raw=raw))
            return
        answers[q.uid] = record = {"response": response, "right": q.check(response) if response is not None else None}
        score = st.session_state[SCORE]
        if response is not None:
            score["answered"] += 1
            score["right"] += int(bool(record["right"]))
        st.rerun()
    _reveal(deck, q, record, language)


def _reveal(deck: Deck, q: Question, record: dict, language: str) -> None:
    response = record["response"]
    if response is None:
        st.info(tr("teaching.quiz.no_answer"))
    elif record["right"]:
        st.success(tr("teaching.quiz.correct"))
    else:
        said = q.choices[int(response)].render(language) if q.kind == CHOICE else fmt(response)
        st.error(tr("teaching.quiz.wrong", response=said))
    st.markdown(f"**{md_escape(tr('teaching.quiz.answer', answer=q.answer_text(language)))}**")
    st.markdown(md_escape(q.reveal.render(language)))
    deck.chart(explain_figure(q, language), f"answer-{q.qid}")
