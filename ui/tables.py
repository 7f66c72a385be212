"""Small tables drawn as plain HTML whose every cell is text.

``st.dataframe`` draws its grid on a canvas: after the data has arrived, each update costs the
browser about 200 ms more (the decoding page's beam-width slider settled 403-557 ms after a move with
its two grids, 218-286 ms with plain tables). ``st.table`` is as light, but renders every cell as
Markdown with LaTeX, so an uploaded word such as ``$x$`` or ``**a**`` would not be shown as typed.
Here every header and cell is escaped with :func:`html.escape`: the browser shows it as text, never
as markup. For tables of a few dozen rows that a page redraws when a control moves.
"""
from __future__ import annotations

import html
import math
import numbers
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from ui.markup_element import show_markup

# the box around a table: a table wider than the screen (a phone) scrolls sideways inside it
BOX_STYLE = "max-width:100%;overflow-x:auto;-webkit-overflow-scrolling:touch"
TABLE_STYLE = "border-collapse:collapse;font-size:0.95rem;margin:0 0 1rem 0"
CELL_STYLE = "padding:0.25rem 0.75rem;border-bottom:1px solid rgba(128,128,128,0.3);text-align:{align}"
# numbers and headers on one line; a text cell wraps, but not below a few characters' width (a phone's
# narrow column wrapped a word to one character a line: the table scrolls sideways instead)
NUMBER_CELL = ";white-space:nowrap"
TEXT_CELL = ";min-width:6em"
HEAD_STYLE = CELL_STYLE + ";font-weight:600"


def cell_text(value: object, fmt: str | None = None) -> str:
    """How a value reads in a cell: infinities as ∞ and −∞, ``fmt`` if given, yes/no as ✓/✗ (in either language), integers with
    thousands separators, floats in their shortest form up to 6 significant digits (round them first to
    show fewer), else ``str``."""
    if isinstance(value, numbers.Real) and math.isinf(value):
        return "∞" if value > 0 else "−∞"
    if fmt is not None:
        return fmt.format(0.0 if isinstance(value, numbers.Real) and value == 0 else value)  # no "-0.00"
    if isinstance(value, (bool, np.bool_)):
        return "✓" if value else "✗"
    if isinstance(value, numbers.Integral):
        return f"{value:,}"
    if isinstance(value, numbers.Real):
        return f"{value:g}"
    return str(value)


MAX_DECIMALS = 6


def column_format(values: pd.Series) -> str | None:
    """One fixed number of decimals for a column of floats, the most any of its values needs in its
    shortest form (at most ``MAX_DECIMALS``), so that the digits of a column line up and read alike:
    ``1.000`` above ``0.995``, not ``1``. None (each value in its shortest form) for a column that
    holds a value too small or large for fixed decimals, or no float."""
    decimals = 0
    for value in values:
        if not isinstance(value, numbers.Real) or isinstance(value, (bool, np.bool_, numbers.Integral)):
            return None
        text = f"{value:.{MAX_DECIMALS}g}"
        if "e" in text or "inf" in text or "nan" in text:
            return None
        decimals = max(decimals, len(text.partition(".")[2]))
    return f"{{:,.{min(decimals, MAX_DECIMALS)}f}}"


def html_table(frame: pd.DataFrame, formats: Mapping[str, str] | None = None,
               shade: Callable[[str, object], str | None] | None = None, max_height: int | None = None) -> str:
    """``frame`` (without its index) as an HTML table; numbers right-aligned, a float column's with one
    number of decimals (:func:`column_format`). ``formats``: a format string per column (instead); ``shade(column, value)``: a CSS background colour for a cell, or None;
    ``max_height``: pixels, beyond which the table scrolls. The table sits in a box that scrolls
    sideways when the table is wider than the screen."""
    numeric = {c: pd.api.types.is_numeric_dtype(frame[c]) and not pd.api.types.is_bool_dtype(frame[c])
               for c in frame.columns}
    formats = {c: fmt for c in frame.columns if pd.api.types.is_float_dtype(frame[c])
               if (fmt := column_format(frame[c])) is not None} | dict(formats or {})
    head = "".join(f'<th style="{HEAD_STYLE.format(align="right" if numeric[c] else "left")}{NUMBER_CELL}">'
                   f"{html.escape(str(c))}</th>" for c in frame.columns)
    rows = []
    for values in frame.itertuples(index=False, name=None):
        cells = []
        for column, value in zip(frame.columns, values):
            style = CELL_STYLE.format(align="right" if numeric[column] else "left") + (
                NUMBER_CELL if numeric[column] else TEXT_CELL)
            colour = shade(column, value) if shade else None
            if colour:
                style += f";background-color:{html.escape(colour)}"
            cells.append(f'<td style="{style}">{html.escape(cell_text(value, formats.get(column)))}</td>')
        rows.append("<tr>" + "".join(cells) + "</tr>")
    table = (f'<table style="{TABLE_STYLE}"><thead><tr>{head}</tr></thead>'
             f"<tbody>{''.join(rows)}</tbody></table>")
    height = "" if max_height is None else f";max-height:{int(max_height)}px;overflow-y:auto"
    return f'<div style="{BOX_STYLE}{height}">{table}</div>'


def text_table(frame: pd.DataFrame, formats: Mapping[str, str] | None = None,
               shade: Callable[[str, object], str | None] | None = None, max_height: int | None = None,
               where: Any = None) -> None:
    """Show ``frame`` as :func:`html_table` (a light table whose cells are text), in ``where`` (a
    column or other container; default: the page), by ui/markup_element.py (written once per change)."""
    show_markup(html_table(frame, formats, shade, max_height), where)
