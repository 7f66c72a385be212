"""Warm the browser while a student reads a page: the frontend code of the element kinds it lacks.

Streamlit 1.67's frontend loads the code of an element kind (Plotly charts, sliders, tables, KaTeX)
the first time a page shows one: for the first page with charts that is ~0.5 s of Chromium's main
thread just to evaluate Plotly's bundle, plus the other chunks, before anything is drawn; KaTeX's
fonts come when a formula first needs them, and the formula is laid out again when they arrive. A
lesson whose first slide has no chart waited 1.7-1.9 s at its first chart slide (the n-gram lesson's
"charts", Chromium here). So every page, in idle time, imports those modules and loads those fonts:
the browser then holds the very same module instances (same URLs) that Streamlit imports later, and
the first chart page only draws. Nothing is drawn or sent back; a missing chunk (another Streamlit
build) is skipped.
"""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import streamlit as st

# Element kinds the pages use that the home page does not (file-name stems in Streamlit's static/js).
CHUNKS = ("PlotlyChart", "Slider", "DataFrame", "rehype-katex", "rehype-raw", "Selectbox", "Radio", "Multiselect",
          "NumberInput", "TextInput", "TextArea", "Button", "Checkbox", "DownloadButton", "Metric", "ButtonGroup",
          "Progress", "ImageList")
# KaTeX's fonts the formulas use (their @font-face rules are in Streamlit's main CSS; a font is fetched
# the first time text needs it, and the formula is laid out again when it arrives).
FONTS = ("16px KaTeX_Main", "bold 16px KaTeX_Main", "italic 16px KaTeX_Math", "16px KaTeX_Size1", "16px KaTeX_Size2",
         "16px KaTeX_Size3", "16px KaTeX_Size4", "16px KaTeX_AMS")

PRELOAD_JS = r"""<script>
(function () {
  const doc = window.parent ? window.parent.document : document;
  const win = doc.defaultView || window;
  if (win.__lmlabPreloaded) return;
  win.__lmlabPreloaded = true;
  const entry = doc.querySelector("script[type=module][src*='static/js/index.']");
  if (!entry) return;
  const chunks = %s;
  const fonts = %s;
  const later = win.requestIdleCallback || ((fn) => win.setTimeout(fn, 300));
  later(async function () {
    for (const name of chunks) {
      // import() in the app's own window (this script may run in a frame): the same module map as Streamlit's
      try { await win.eval("(u) => import(u)")(new URL(name, entry.src).href); } catch (e) { /* drawn on use */ }
    }
    for (const font of fonts) { try { await doc.fonts.load(font); } catch (e) { /* fetched on use */ } }
  }, {timeout: 1500});
})();
</script>"""


@lru_cache(maxsize=1)
def chunk_files() -> tuple[str, ...]:
    """File names of :data:`CHUNKS` in the installed Streamlit's static/js (those that exist)."""
    folder = Path(st.__file__).parent / "static" / "static" / "js"
    found = []
    for stem in CHUNKS:
        names = sorted(p.name for p in folder.glob(f"{stem}.*.js"))
        if len(names) == 1:  # one build of that chunk: its name is certain
            found.append(names[0])
    return tuple(found)


@lru_cache(maxsize=1)
def preload_html() -> str:
    """The script of :func:`preload_page_code` ("" when no chunk of this Streamlit build is known)."""
    files = chunk_files()
    return PRELOAD_JS % (json.dumps(list(files)), json.dumps(list(FONTS))) if files else ""


def preload_page_code() -> None:
    """Send the script that imports the other pages' frontend code in idle time (every run of every
    page: the browser runs it once a tab)."""
    html = preload_html()
    if html:
        st.html(html, unsafe_allow_javascript=True)
