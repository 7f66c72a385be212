"""What every page reads: the language, the translated strings, the corpus, shareable URL settings."""
from __future__ import annotations

import math
import re
from collections.abc import Sequence
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


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$&^=\"'])")


def md_text(text: str) -> str:
    """``text`` made inert for Streamlit's Markdown: every Markdown, HTML and LaTeX character is
    backslash-escaped and ``:`` is followed by a zero-width space (no ``:emoji:`` or ``:red[...]``)."""
    return _MD_SPECIAL.sub(r"\\\1", text).replace(":", ":\u200b").replace("\n", " ")


def corpus_name(corpus: Corpus) -> str:
    """The corpus's name for people, as plain text: a built-in sample's translated title, or the
    uploaded file's name exactly as typed. Shown inside Markdown, it goes through :func:`md_text`."""
    if corpus.name in ("english", "chinese"):
        return tr(f"sidebar.sample.{corpus.name}")
    if re.fullmatch(r"synthetic \(\d+\)", corpus.name):  # an upload's name ends in .txt or .md
        return tr("sidebar.sample.synthetic")
    return corpus.name


def parse_param(raw: str, default: T, choices: Sequence[T] | None = None,
                lo: float | None = None, hi: float | None = None) -> T | None:
    """``raw`` cast to the type of ``default`` and checked against ``choices`` or [lo, hi]; None if invalid."""
    try:
        if isinstance(default, bool):
            if raw.lower() not in ("1", "true", "yes", "0", "false", "no"):
                return None
            value = raw.lower() in ("1", "true", "yes")
        elif isinstance(default, int):
            value = int(raw)
        elif isinstance(default, float):
            value = float(raw)
            if not math.isfinite(value):
                return None
        else:
            value = type(default)(raw)
    except (TypeError, ValueError, OverflowError):
        return None
    if choices is not None and value not in choices:
        return None
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        return None
    return value  # type: ignore[return-value]


def query_param(name: str, default: T, choices: Sequence[T] | None = None,
                lo: float | None = None, hi: float | None = None) -> T:
    """``st.query_params[name]`` as a valid value for the control it feeds, else ``default``.

    A value of the wrong type, outside [lo, hi] or not among ``choices`` falls back to ``default``
    with a short notice (once per parameter and session); a link can never raise an exception."""
    raw = st.query_params.get(name)
    if raw is None:
        return default
    value = parse_param(raw, default, choices, lo, hi)
    if value is not None:
        return value
    warned = st.session_state.setdefault("params_warned", set())
    if name not in warned:
        warned.add(name)
        st.toast(tr("params.bad", name=md_text(name[:20]), value=md_text(raw[:40]), default=default))
    return default


def set_query_params(**values: object) -> None:
    """Mirror a page's main settings in the URL, so a copied link reopens the same view."""
    for name, value in values.items():
        text = str(value)
        if st.query_params.get(name) != text:
            st.query_params[name] = text
