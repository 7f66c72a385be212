"""A formula element: a formula drawn once into the page, not through Markdown (a components-v2 element).

``st.latex`` sends a formula through the browser's Markdown pipeline (Markdown parse, rehype-katex, a
React tree of every glyph), and the frontend renders the page's tree again at each change of the
app's state, three times per move of a control. This element hands the LaTeX to the same
rehype-katex (Streamlit's chunk: the KaTeX whose CSS and fonts the page has) and writes its output
into its own box once; a run that sends the same formula again does not call it at all
(ui/formula_element.js). The chain-rule page's order slider → settled, median of 16 moves alternated
between two servers in one Chromium: 151 ms with ``st.latex``, 124 ms with this element.
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
