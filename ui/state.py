"""What every page reads: the language, the translated strings, the corpus, shareable URL settings."""
from __future__ import annotations

from typing import TypeVar

import streamlit as st

from lmcore.corpus import Corpus
from lmcore.i18n import t

T = TypeVar("T")


def lang() -> str:
    """The UI language chosen in the sidebar: 'en' or 'zh'."""
    return st.session_state.get("lang", "en")


def tr(key: str, **fields: object) -> str:
    """The catalogue string ``key`` in the current language."""
    return t(key, lang(), **fields)


def labeller(prefix: str, **fields: object):
    """A ``format_func`` for options: ``option -> tr(f"{prefix}.{option}")``, in today's language.

    The language is bound now, because AppTest calls format functions outside the script run."""
    language = lang()
    return lambda option: t(f"{prefix}.{option}", language, **fields)


def current_corpus() -> Corpus:
    """The corpus chosen in the shared sidebar (set by app.py on every run)."""
    return st.session_state["corpus"]


def corpus_label(corpus: Corpus) -> str:
    """The corpus's name for people: a built-in sample's translated title, or the uploaded file's name."""
    sample = corpus.name.split(" ")[0]
    return tr(f"sidebar.sample.{sample}") if sample in ("english", "chinese", "synthetic") else corpus.name


def query_param(name: str, default: T) -> T:
    """``st.query_params[name]`` cast to the type of ``default``; ``default`` if absent or malformed."""
    raw = st.query_params.get(name)
    if raw is None:
        return default
    try:
        if isinstance(default, bool):
            return raw.lower() in ("1", "true", "yes")  # type: ignore[return-value]
        return type(default)(raw)  # type: ignore[call-arg]
    except (TypeError, ValueError):
        return default


def set_query_params(**values: object) -> None:
    """Mirror a page's main settings in the URL, so a copied link reopens the same view."""
    for name, value in values.items():
        text = str(value)
        if st.query_params.get(name) != text:
            st.query_params[name] = text
