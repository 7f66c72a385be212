"""What every page reads: the language, the translated strings, the corpus, its settings from a link."""
from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import TypeVar

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

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
    """The page's setting ``name`` as a valid value for the control it feeds: the one this session
    keeps (:func:`keep_settings`), else the link's (``st.query_params[name]``), else ``default``.

    A value of the wrong type, outside [lo, hi] or not among ``choices`` falls back to ``default``
    with a short notice (once per parameter and session); a link can never raise an exception."""
    raw = _page_settings().get(name)
    if raw is None:
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
    """Write where this view is (page part, language, corpus, slide) in the address: a copied link
    or a reload opens it there, and Back returns to the part before."""
    for name, value in values.items():
        text = str(value)
        if st.query_params.get(name) != text:
            st.query_params[name] = text


PAGE_SETTINGS = "lmlab_page_settings"  # {page script hash: {setting: text}}
SHARE_BOX = "teaching_share_box"  # ui/teaching_share.py's box in the sidebar: open, its link shows the kept settings


def fragment_rerun() -> bool:
    """Whether this run reruns fragments only (Streamlit's run context says which it runs)."""
    ctx = get_script_run_ctx()
    return bool(ctx and ctx.fragment_ids_this_run)


def _page_settings() -> dict[str, str]:
    """The open page's settings kept by :func:`keep_settings`: each page's own, for the session (Back,
    or the navigation, returns to a page as it was left)."""
    ctx = get_script_run_ctx()
    return st.session_state.setdefault(PAGE_SETTINGS, {}).setdefault(ctx.page_script_hash if ctx else "", {})


def keep_settings(**values: object) -> None:
    """A page's main settings (a slider's value, a chosen model): kept in the session, where
    :func:`query_param` reads them, and put in the page's share link (:func:`page_settings`), not in the
    address. Each change of the address costs Streamlit's frontend a render of the whole app and a
    history entry: a move of a control would pay both (about a tenth of its time to settle), and
    Back would step through every value moved. A link's value, once read, leaves the address, which
    would otherwise name a setting the view no longer shows. A fragment's run that changes one while
    the sidebar's share link is open reruns the whole page, so that the link follows."""
    kept = _page_settings()
    changed = False
    for name, value in values.items():
        changed |= kept.get(name) != str(value)
        kept[name] = str(value)
        if name in st.query_params:
            del st.query_params[name]
    if changed and st.session_state.get(SHARE_BOX) and fragment_rerun():
        st.rerun(scope="app")


def page_settings() -> dict[str, str]:
    """The open page's settings as its share link carries them (:func:`keep_settings`)."""
    return dict(_page_settings())
