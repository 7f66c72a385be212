"""How a teaching question is written on a page: the lesson's predict-then-reveal and the live class."""
from __future__ import annotations

import streamlit as st

from lmcore.teaching.question import Question
from lmcore.teaching.sheet import md_escape, md_table
from ui.state import lang, tr


def question_statement(q: Question, title: str) -> None:
    """A question's title and topic, its prompt and its table (each text escaped: shown as written)."""
    language = lang()
    st.markdown(f"**{md_escape(title)}** · {md_escape(tr(f'teaching.topic.{q.topic}'))}")
    st.markdown(md_escape(q.prompt.render(language)))
    if q.table is not None:
        st.markdown("\n".join(md_table(q, language)))
