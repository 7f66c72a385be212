"""Work-arounds for two things Streamlit 1.67's frontend does on its own, in English only.

1. The file uploader's button and limit line ("Upload", "50MB per file • TXT, MD") are fixed
   English texts: in 中文 a style sheet draws the catalogue's words in their place.
2. A fresh server's very first request goes through the legacy ``pages/`` lookup (a folder named
   pages/ exists), which does not know our URL paths: a deep link such as ``/smoothing`` then pops
   up "Page not found" over the right page. The app detects that run (the lookup's flag is still
   set when app.py starts) and sends a small script that closes that pop-up when the address is
   one of our pages; an address that is really unknown keeps it.
"""
from __future__ import annotations

import json

import streamlit as st
from streamlit.runtime.pages_manager import PagesManager

from ui.navigation import PAGES


def is_legacy_first_run() -> bool:
    """True while the server's first run goes through the legacy ``pages/`` lookup (st.navigation,
    called later in this run, switches it off for good)."""
    return bool(PagesManager.uses_pages_directory)


CLOSE_SPURIOUS_NOT_FOUND = r"""<script>
(function () {
  const doc = window.parent ? window.parent.document : document;
  const ours = %s;
  let tries = 0;
  const timer = setInterval(function () {
    // the legacy run first shows the main page's address; st.navigation then sets the page's own
    const last = doc.location.pathname.replace(/\/+$/, "").split("/").pop();
    if (!ours.includes(last)) return tries++ > 100 && clearInterval(timer);  // unknown: keep the message
    for (const title of doc.querySelectorAll("[role=dialog] h2")) {
      if (title.textContent.trim() === "Page not found") {
        const close = title.parentElement.querySelector("button[aria-label=Close]");
        if (close) close.click();
        clearInterval(timer);
        return;
      }
    }
    if (++tries > 100) clearInterval(timer);
  }, 50);
})();
</script>"""


def close_spurious_page_not_found() -> None:
    """Call at the top of app.py, before ``st.navigation``: on the legacy first run, close its pop-up."""
    if is_legacy_first_run():
        paths = [url for stem, url, _ in PAGES if stem != "home"]  # home is served at "/" only
        st.html(CLOSE_SPURIOUS_NOT_FOUND % json.dumps(paths), unsafe_allow_javascript=True)


def _css_text(text: str) -> str:
    """``text`` as a CSS string literal."""
    return json.dumps(text, ensure_ascii=False)  # CSS strings escape quotes and backslashes as JSON does


def uploader_texts_css(button: str, limits: str) -> str:
    """A style sheet drawing ``button`` and ``limits`` in place of the uploader's own English texts."""
    zone = '.st-key-uploader [data-testid="stFileUploaderDropzone"]'
    return f"""<style>
{zone} button [data-testid="stMarkdownContainer"] p {{ font-size: 0; }}
{zone} button [data-testid="stMarkdownContainer"] p::after {{ content: {_css_text(button)}; font-size: 1rem; }}
{zone} [data-testid="stFileUploaderDropzoneInstructions"] span {{ font-size: 0; }}
{zone} [data-testid="stFileUploaderDropzoneInstructions"] span::after {{ content: {_css_text(limits)}; font-size: 0.875rem; }}
</style>"""
