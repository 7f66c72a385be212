"""Static exports: Plotly figures as PNG/SVG at slide size (kaleido 1.x driving Chromium), HTML as
PDF (Chromium's own ``--print-to-pdf``), and file names that say what a file is.

Chromium is found as kaleido/choreographer find it (``BROWSER_PATH``, then ``chromium`` & co. on
PATH), with Debian's /usr/bin/chromium as the fallback. One export runs at a time per process
(a lock): a class of students clicking "PNG" together queues instead of starting many browsers.
Nothing is fetched from outside: kaleido's page loads plotly.js from the plotly package and no
MathJax (its default comes from a CDN; the app's charts have no LaTeX).
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path
from collections.abc import Mapping

import plotly.graph_objects as go

from lmcore.teaching.projector import projector_figure

SLIDE = (1920, 1080)
FORMATS = ("png", "svg")
_LOCK = threading.Lock()
_BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")


class ExportError(RuntimeError):
    """A figure or sheet could not be rendered (no Chromium, a timeout...)."""


def chromium_path() -> str | None:
    """The Chromium/Chrome executable to use, or None."""
    for candidate in (os.environ.get("BROWSER_PATH"), *(shutil.which(b) for b in _BROWSERS), "/usr/bin/chromium"):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


def figure_image(fig: go.Figure, fmt: str = "png", width: int = SLIDE[0], height: int = SLIDE[1],
                 timeout: float = 120) -> bytes:
    """``fig`` as PNG or SVG bytes of exactly width×height, with projector fonts scaled to the size
    (a 1920×1080 slide gets 1.5× the 1280×720 projector sizes)."""
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {FORMATS}")
    browser = chromium_path()
    if browser is None:
        raise ExportError("no Chromium/Chrome found (install Debian's chromium or set BROWSER_PATH)")
    import kaleido

    styled = projector_figure(fig, scale=height / 720, height=height)
    styled.update_layout(width=width, height=height)
    with _LOCK:
        try:
            return kaleido.calc_fig_sync(styled, opts=dict(format=fmt, width=width, height=height),
                                         kopts=dict(path=browser, timeout=timeout, mathjax=False))
        except Exception as error:  # kaleido raises several kinds; the caller shows one message
            raise ExportError(f"figure export failed: {error}") from error


def html_to_pdf(html: str, timeout: float = 120) -> bytes:
    """Print an HTML document to PDF with headless Chromium (A4, no header/footer)."""
    browser = chromium_path()
    if browser is None:
        raise ExportError("no Chromium/Chrome found (install Debian's chromium or set BROWSER_PATH)")
    with tempfile.TemporaryDirectory(prefix="lmlab-pdf-") as tmp:
        page, pdf = Path(tmp) / "sheet.html", Path(tmp) / "sheet.pdf"
        page.write_text(html, encoding="utf-8")
        command = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                   "--no-first-run", "--disable-background-networking", "--disable-component-update",
                   f"--user-data-dir={Path(tmp) / 'profile'}", "--no-pdf-header-footer",
                   f"--print-to-pdf={pdf}", page.as_uri()]
        with _LOCK:
            try:
                subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=timeout, check=False)
            except subprocess.TimeoutExpired as error:
                raise ExportError("PDF rendering timed out") from error
        if not pdf.exists() or pdf.stat().st_size == 0:
            raise ExportError("Chromium produced no PDF")
        return pdf.read_bytes()


def slug(value: object) -> str:
    """A file-name-safe piece: letters (any script), digits, '.', '-'; everything else becomes '-'."""
    text = re.sub(r"[^\w.\-]+", "-", str(value), flags=re.UNICODE).strip("-.")
    return re.sub(r"-{2,}", "-", text)[:60] or "x"


def export_name(page: str, what: str, corpus: str, settings: Mapping[str, object] | None = None,
                ext: str = "png", size: tuple[int, int] | None = None) -> str:
    """e.g. ``ngram_next-words_english_n3-delta1-d0.75_1920x1080.png``: page, what, corpus, settings, size."""
    parts = [slug(page), slug(what), slug(corpus)]
    if settings:
        parts.append("-".join(slug(f"{k}{v}") for k, v in settings.items()))
    if size:
        parts.append(f"{size[0]}x{size[1]}")
    return "_".join(parts) + "." + ext
