"""A formula element: a formula drawn once into the page, not through Markdown (a components-v2 element).

``st.latex`` sends a formula through the browser's Markdown pipeline (Markdown parse, rehype-katex, a
React tree of every glyph), inside the React tree that the frontend renders again at each change of
the app's state (three renders per move of a control, in a Chrome trace of the chain-rule page). This
element hands the LaTeX to the same rehype-katex (Streamlit's chunk: the KaTeX whose CSS and fonts
the page has) and writes its output into its own box once; a run that sends the same formula again
does not call it at all (ui/formula_element.js). The chain-rule page's order slider → settled, median
of 16 moves alternated between two servers in one Chromium: 151 ms with ``st.latex``, 124 ms with
this element (tests/test_formula_element.py: laid out glyph for glyph as ``st.latex`` lays it out).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import streamlit.components.v2 as components

from ui.placed_element import element_script, frontend_chunk, show_placed

NAME = "lmlab_formula"
"""The component's name (Streamlit's element ``component_name``)."""
SCRIPT = element_script(Path(__file__).with_name("formula_element.js"), KATEX_CHUNK=frontend_chunk("rehype-katex"))
_mount = components.component(NAME, js=SCRIPT, isolate_styles=False)  # the page's KaTeX CSS must reach it


def formula(tex: str, where: Any = None) -> None:
    """Show the display-mode formula ``tex`` (LaTeX, as for ``st.latex``) across ``where`` (``st`` if
    None). Keyed by its place: a changed formula is drawn again in the element already shown."""
    show_placed(_mount, tex.encode("utf-8"), where, prefix="lmlab_formula")
