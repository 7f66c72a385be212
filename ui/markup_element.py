"""A markup element: our own small HTML (a table, a coloured passage) written into the page once per
change (a components-v2 element).

``st.html`` runs its markup through the browser's sanitiser, and ``st.markdown`` through its Markdown
and HTML parsers, and both render it in React again at every run that sends it: a table a control
redraws (the n-gram page's next words, the decoding page's n-best list) cost the browser about 10 ms
a move more than writing it into its own box (a one-table test app, median of 12 moves: 38 ms
settled with ``st.html``, 31 ms with this element, 30 ms with no table). Only markup whose every text
is escaped is shown here: ui/tables.py's ``html_table`` and lmcore.figures.lstm's ``activation_html``
(tests/test_tables.py, tests/test_training_support.py), so what a student uploaded is text.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import streamlit.components.v2 as components

from ui.placed_element import element_script, show_placed

NAME = "lmlab_markup"
"""The component's name (Streamlit's element ``component_name``)."""
_mount = components.component(NAME, js=element_script(Path(__file__).with_name("markup_element.js")),
                              isolate_styles=False)  # the page's font and colours, as st.html's


def show_markup(markup: str, where: Any = None) -> None:
    """Show ``markup`` (HTML whose every text is escaped: see above) across ``where`` (``st`` if None),
    keyed by its place: changed markup is written again into the element already shown."""
    show_placed(_mount, markup.encode("utf-8"), where, prefix="lmlab_markup")
