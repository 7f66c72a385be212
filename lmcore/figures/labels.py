"""Text that goes into Plotly labels (ticks, hover, annotations) and the words of formulas.

Plotly reads a small HTML subset in every label: a token such as ``<s>`` starts strikethrough,
``</s>`` vanishes, and uploaded text could carry ``<b>`` or ``<a>`` tags. Every token or piece of
user text placed in a figure goes through :func:`plotly_text`.

The app's own KaTeX formulas hold a few English words (``\text{if }``, ``\text{otherwise}``,
``\text{threshold}``, ``P_{smooth}``); :func:`tex_words` writes them in the page's language.
"""
from __future__ import annotations

import html
import math
import re
from collections.abc import Iterable

from lmcore.i18n import t

TEX_WORDS = ("if", "otherwise", "threshold", "smooth")


def plotly_text(text: object) -> str:
    """``text`` with ``&``, ``<`` and ``>`` escaped, so Plotly shows it literally."""
    return html.escape(str(text), quote=False)


def plotly_texts(texts: Iterable[object]) -> list[str]:
    """:func:`plotly_text` applied to each item."""
    return [plotly_text(t) for t in texts]


def number_text(x: float, digits: int = 2) -> str:
    """``x`` with ``digits`` decimals for a table cell; ±∞ as "∞"/"−∞" and NaN as "—" (a table shows
    a float infinity as the English word "Infinity", in every language)."""
    if math.isnan(x):
        return "—"
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    return f"{x:,.{digits}f}"


def tex_words(tex: str, lang: str, words: Iterable[str] = TEX_WORDS) -> str:
    """``tex`` with the formula words ``words`` in language ``lang``: ``\text{if }``,
    ``\text{otherwise}`` and ``\text{threshold}`` (spacing kept), and the subscript of
    ``P_{smooth}``. For the app's own formulas: a token shown as ``\text{...}`` is changed too when it
    is one of ``words`` (so pass only the words a formula with tokens in it uses in other forms)."""
    for word in words:
        local = t(f"tex.{word}", lang)
        if word == "smooth":
            tex = tex.replace("_{smooth}", r"_{\text{" + local + "}}")
        else:
            tex = re.sub(r"\\text\{(\s*)" + word + r"(\s*)\}", lambda m, local=local: rf"\text{{{m[1]}{local}{m[2]}}}", tex)
    return tex
