"""ui/tables.py: every header and cell is text, whatever an uploaded word looks like."""
from __future__ import annotations

import numpy as np
import pandas as pd

from tests.apptest_helpers import _TableParser
from ui.tables import cell_text, html_table

HOSTILE = ["<b>bold</b>", "<script>alert(1)</script>", "**stars**", "$x^2$", "[link](https://example.com)",
           "&amp;", "\"quoted\" 'single'", "<img src=x onerror=alert(1)>", "中文 <s>"]


def _parsed(markup: str) -> list[list[str]]:
    parser = _TableParser()
    parser.feed(markup)
    return parser.rows


def test_hostile_words_come_back_as_the_same_text():
    """Python's own HTML parser reads every cell back as the very string (a tag would be a tag, an
    entity a character: both would change the text)."""
    frame = pd.DataFrame({"<th>word": HOSTILE, "n": range(len(HOSTILE))})
    rows = _parsed(html_table(frame))
    assert rows[0] == ["<th>word", "n"]
    assert [row[0] for row in rows[1:]] == HOSTILE
    assert "<script" not in html_table(frame) and "<b>" not in html_table(frame)


def test_numbers_read_as_a_table_shows_them_and_align_right():
    frame = pd.DataFrame({"word": ["a", "b"], "count": [1234567, 2], "p": [0.048312, -3.0366], "done": [True, False]})
    markup = html_table(frame, formats={"p": "{:.3f}"}, shade=lambda column, value: "#f8c9c9" if value == 2 else None)
    rows = _parsed(markup)
    assert rows[1:] == [["a", "1,234,567", "0.048", "✓"], ["b", "2", "-3.037", "✗"]]
    assert markup.count("text-align:right") == 2 * 3  # the two numeric columns' header and cells
    assert markup.count("background-color:#f8c9c9") == 1


def test_cell_text():
    assert cell_text(0.1 + 0.2) == "0.3" and cell_text(-2.9188) == "-2.9188" and cell_text(12) == "12"
    assert cell_text(float("inf"), "{:.2f}") == "∞" and cell_text(-np.inf) == "−∞"  # as the charts say
    assert cell_text(True) == "✓" and cell_text(np.False_) == "✗" and cell_text("a b") == "a b" and cell_text(0.5, "{:.0%}") == "50%"


def test_a_float_column_shows_one_number_of_decimals_and_no_negative_zero():
    frame = pd.DataFrame({"accuracy": [1.0, 0.995, 0.375], "log P": [-1.1506, -1.106, -0.0], "count": [1231.0, 2.0, 3.0],
                          "p": [1e-9, 0.5, 1.0]})
    rows = _parsed(html_table(frame))
    assert [row[0] for row in rows[1:]] == ["1.000", "0.995", "0.375"]
    assert [row[1] for row in rows[1:]] == ["-1.1506", "-1.1060", "0.0000"]
    assert [row[2] for row in rows[1:]] == ["1,231", "2", "3"]
    assert [row[3] for row in rows[1:]] == ["1e-09", "0.5", "1"]  # too small for fixed decimals: shortest form
