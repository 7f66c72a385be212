"""Text that goes into Plotly labels (ticks, hover, annotations).

Plotly reads a small HTML subset in every label: a token such as ``<s>`` starts strikethrough,
``</s>`` vanishes, and uploaded text could carry ``<b>`` or ``<a>`` tags. Every token or piece of
user text placed in a figure goes through :func:`plotly_text`.
"""
from __future__ import annotations

import html
from collections.abc import Iterable


def plotly_text(text: object) -> str:
    """``text`` with ``&``, ``<`` and ``>`` escaped, so Plotly shows it literally."""
    return html.escape(str(text), quote=False)


def plotly_texts(texts: Iterable[object]) -> list[str]:
    """:func:`plotly_text` applied to each item."""
    return [plotly_text(t) for t in texts]
