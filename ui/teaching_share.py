"""Teaching mode's sidebar tools: exercise sheets and answer keys to download, and the "share this
view" link with its QR code (ui/teaching.py's ``Deck.settings`` and ``Deck.tools`` place them)."""
from __future__ import annotations

import io
import urllib.parse
from collections.abc import Callable

import streamlit as st

from lmcore.i18n import LANGUAGE_NAMES
from lmcore.teaching import COURSE, LessonInputs, build_sheet
from lmcore.teaching.export import ExportError, export_name
from lmcore.teaching.sheet import (COURSE_MAX_QUESTIONS, MAX_QUESTIONS, MIN_QUESTIONS, key_markdown, sheet_markdown,
                                   sheet_pdf)
from ui.navigation import PAGES
from ui.state import SHARE_BOX, lang, page_settings, query_param, set_query_params, tr

SEED_MAX = 1_000_000
SHEET_BOX = "teaching_sheet_box"  # the exercise sheet's box in the sidebar: open, a change of the page's settings reruns the page


def quiz_seed() -> int:
    """The questions' seed in the link (``?qseed=``): an integer in [0, SEED_MAX], else 0."""
    return query_param("qseed", 0, lo=0, hi=SEED_MAX)


def course_topics() -> tuple[str, ...]:
    """Every topic of the course, in the order of its lessons."""
    return tuple(dict.fromkeys(topic for lesson in COURSE for topic in lesson.topics))


def sheet_download(inputs: Callable[[], LessonInputs], topics: tuple[str, ...], where=None) -> None:
    """Sheet and answer key as Markdown and PDF, EN or 中文, for this page's ``topics`` or for the whole
    course; the seed is kept in the URL (``?qseed=``). ``inputs()`` is called only while the box is open."""
    where = where or st
    box = where.expander(tr("teaching.sheet.header"), key=SHEET_BOX, on_change="rerun")
    if not box.open:  # lazy: its controls and buttons are made only while it is open
        return
    with box:
        scopes = ["page", "course"] if topics else ["course"]
        scope = st.radio(tr("teaching.sheet.scope"), scopes, horizontal=True, key="teaching_sheet_scope",
                         format_func=lambda s: tr(f"teaching.sheet.scope.{s}"))
        chosen, most = (topics, MAX_QUESTIONS) if scope == "page" else (course_topics(), COURSE_MAX_QUESTIONS)
        n = st.slider(tr("teaching.sheet.n"), MIN_QUESTIONS, most, min(8 if scope == "page" else 16, most),
                      key=f"teaching_sheet_n_{scope}")
        seed = int(st.number_input(tr("teaching.sheet.seed"), 0, SEED_MAX, quiz_seed(), key="teaching_sheet_seed"))
        set_query_params(qseed=seed)
        sheet_lang = st.radio(tr("teaching.sheet.lang"), ["en", "zh"], index=["en", "zh"].index(lang()), horizontal=True,
                              format_func=LANGUAGE_NAMES.get, key="teaching_sheet_lang")
        live = inputs()
        stem = export_name("sheet", f"{scope}-seed{seed}", live.corpus, live.settings(), "x").rsplit(".", 1)[0]

        def sheet():  # built when a download is clicked, not on every run of the page
            return build_sheet(live, seed, n, topics=chosen, most=most)

        files = [("teaching.sheet.md", lambda: sheet_markdown(sheet(), sheet_lang).encode("utf-8"), "md", "text/markdown"),
                 ("teaching.sheet.pdf", lambda: _pdf(sheet(), sheet_lang, False), "pdf", "application/pdf"),
                 ("teaching.sheet.key_md", lambda: key_markdown(sheet(), sheet_lang).encode("utf-8"), "md", "text/markdown"),
                 ("teaching.sheet.key_pdf", lambda: _pdf(sheet(), sheet_lang, True), "pdf", "application/pdf")]
        for label, data, ext, mime in files:
            name = f"{stem}_{sheet_lang}{'_key' if 'key' in label else ''}.{ext}"
            st.download_button(tr(label), data, file_name=name, mime=mime, on_click="ignore", key=f"lmlab-{label}")


def _pdf(sheet, language: str, key: bool) -> bytes:
    try:
        return sheet_pdf(sheet, language, key)
    except ExportError as error:
        return tr("teaching.sheet.failed", reason=str(error)).encode("utf-8")


def view_url(page: str) -> str:
    """The full link of this view: this page, its section (the address) and its settings (kept in the session)."""
    base = urllib.parse.urlsplit(st.context.url or "http://localhost:8501")
    path = next(url for stem, url, _ in PAGES if stem == page)
    params = st.query_params.to_dict() | page_settings()
    params["lang"] = lang()
    return urllib.parse.urlunsplit((base.scheme, base.netloc, "/" + path, urllib.parse.urlencode(params), ""))


@st.cache_data(show_spinner=False, max_entries=512)
def qr_png(url: str, scale: int) -> bytes:
    """A QR code of ``url`` as PNG bytes (segno), made once per link and size."""
    import segno

    buffer = io.BytesIO()
    segno.make(url, error="m").save(buffer, kind="png", scale=scale, border=2)
    return buffer.getvalue()


def share_view(page: str, where=None, big: bool = False) -> None:
    """The full link and a QR code of it, for students to scan."""
    where = where or st
    url = view_url(page)
    box = where if big else where.expander(tr("teaching.share.header"), key=SHARE_BOX, on_change="rerun")
    if not big and not box.open:  # lazy: the QR image is made and fetched only while the box is open
        return
    box.caption(tr("teaching.share.caption"))
    box.image(qr_png(url, 10 if big else 5), width=420 if big else 220)
    box.text(url)  # plain text: st.code would load the syntax highlighter (~0.4 s of a first page open)
