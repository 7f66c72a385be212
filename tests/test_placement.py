"""Token axes (lmcore/figures/placement.py): which tokens are written under a chart, and how."""
from __future__ import annotations

import math

from lmcore.figures.placement import text_width, token_axis


def test_short_tokens_that_fit_are_all_written_upright_at_their_positions():
    axis = token_axis(["a", "b", "a"], 600, labels=["A", "B", "A"], first=0)
    assert axis == {"tickmode": "array", "tickvals": [0, 1, 2], "ticktext": ["A", "B", "A"], "tickangle": 0}


def test_long_latin_tokens_are_slanted_not_dropped():
    words = ["millbrook", "riverside", "afternoon"] * 4  # 12 labels of ~62 px in 300 px
    axis = token_axis(words, 300, slant=-60)
    assert axis["tickangle"] == -60 and axis["tickvals"] == list(range(1, 13)) and axis["ticktext"] == words


def test_chinese_stays_upright_and_every_kth_is_written_so_that_they_fit():
    words = ["语言模型"] * 30
    width = 400
    axis = token_axis(words, width)
    step = axis["tickvals"][1] - axis["tickvals"][0]
    room = text_width("语言模型") + 6  # the widest label and a gap
    assert axis["tickangle"] == 0 and axis["tickvals"] == list(range(1, 31, step))
    assert room * math.ceil(30 / step) <= width  # the labels written fit side by side
    assert room * math.ceil(30 / (step - 1)) > width  # one more label each would not
