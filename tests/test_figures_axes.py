"""Every figure builder's axes read correctly: a log axis labels its ticks with the numbers they
stand for (powers of ten or full numbers such as 20, 50, 100, never Plotly's bare "2", "5"
between decades), shows at least two of them and every plotted value; tick text is large and dark; every drawn axis with tick labels is named."""
import json
import math
import re

import numpy as np
import pytest

from lmcore.figures.ngram import cumulative_logprob_figure
from lmcore.figures.style import log_scale, tick_label
from lmcore.figures.upright import NAME as UPRIGHT
from lmcore.lm_protocol import TokenLogProbs
from tests.figure_cases import builders, case_params, cases, running_ppl_case

CASES = cases()
ALL = case_params()


def parse_tick(text: str) -> float:
    """The number a student reads in a tick label ("2,000", "0.05", "10<sup>−4</sup>", "2×10<sup>6</sup>")."""
    s = text.replace(",", "").replace("−", "-")
    power = re.fullmatch(r"(?:(\d+)×)?10<sup>(-?\d+)</sup>", s)
    if power:
        return int(power.group(1) or 1) * 10.0 ** int(power.group(2))
    return float(s)


def _axes(layout: dict):
    return [(k, v) for k, v in layout.items() if re.fullmatch(r"[xy]axis\d*", k)]


def _on(trace: dict, key: str) -> bool:
    letter, suffix = key[0], key[5:]
    return (trace.get(f"{letter}axis") or letter) == letter + suffix


def _positive(values) -> list[float]:
    out = []
    for v in values or ():
        if isinstance(v, (list, tuple)):
            out += _positive(v)
        elif isinstance(v, (int, float)) and math.isfinite(v) and v > 0:
            out.append(float(v))
    return out


def test_every_builder_has_cases():
    assert set(builders()) == set(CASES), "add inputs for a new figure builder to tests/figure_cases.py"


@pytest.mark.parametrize("name, make", ALL)
def test_log_axes_read_as_their_values(name, make):
    spec = json.loads(make().to_json())
    for key, axis in _axes(spec["layout"]):
        assert not str(axis.get("dtick", "")).startswith("D"), (name, key)
        if axis.get("type") != "log":
            continue
        vals, texts = axis.get("tickvals"), axis.get("ticktext")
        assert axis.get("tickmode") == "array" and vals and len(vals) == len(texts), (name, key)
        for v, text in zip(vals, texts):
            assert parse_tick(text) == pytest.approx(v, rel=1e-9), (name, key, text, v)
            m = v / 10 ** math.floor(math.log10(v) + 1e-9)
            assert abs(m - round(m)) < 1e-9, (name, key, v)  # 1·10^k … 9·10^k
        lo, hi = axis["range"]
        shown = [v for v in vals if lo <= math.log10(v) <= hi]
        assert len(shown) >= 2, (name, key, texts, axis["range"])
        drawn = [v for trace in spec["data"] if _on(trace, key) for v in _positive(trace.get(key[0]))]
        assert all(lo <= math.log10(v) <= hi for v in drawn if v <= 1e300), (name, key)


@pytest.mark.parametrize("name, make", ALL)
def test_tick_text_is_large_and_dark(name, make):
    spec = json.loads(make().to_json())
    for key, axis in _axes(spec["layout"]):
        font = axis.get("tickfont", {})
        assert font.get("size", 0) >= 12, (name, key)
        r, g, b = (int(font["color"][i:i + 2], 16) for i in (1, 3, 5))
        assert 0.2126 * r + 0.7152 * g + 0.0722 * b < 90, (name, key, font["color"])


@pytest.mark.parametrize("name, make", ALL)
def test_every_axis_with_tick_labels_is_named(name, make):
    """A student reads what an axis stands for, not only its ticks: every x/y axis that a trace is drawn
    on and that shows tick labels has a title (or, in Chinese, its upright annotation)."""
    spec = json.loads(make().to_json())
    for key, axis in _axes(spec["layout"]):
        drawn = any(_on(trace, key) for trace in spec["data"])
        if not drawn or axis.get("visible") is False or axis.get("showticklabels") is False:
            continue
        title = axis.get("title")
        upright = [a for a in spec["layout"].get("annotations", []) if a.get("name") == UPRIGHT
                   and a.get("yref") == key.replace("axis", "") + " domain"]  # a Chinese y title drawn upright
        assert (title.get("text") if isinstance(title, dict) else title) or upright, (name, key)


def test_running_perplexity_near_31_reads_30_not_5():
    """The chart of issue 15: PPL 5 → 100 → 31 had ticks "5, 10, 2, 5, 100"."""
    from lmcore.figures.ngram import running_perplexity_figure

    axis = json.loads(running_perplexity_figure(running_ppl_case()).to_json())["layout"]["yaxis"]
    labels = dict(zip(axis["tickvals"], axis["ticktext"]))
    below_31 = max(v for v in labels if v <= 31)
    assert labels[below_31] in ("20", "30") and "5" in labels.values() and "100" in labels.values()


@pytest.mark.parametrize("lo, hi, expected", [
    (5, 100, ["5", "10", "20", "50", "100"]),
    (31, 45, ["30", "40", "50"]),
    (8, 1500, ["10", "100", "1,000"]),
    (1e-4, 1, ["10<sup>−4</sup>", "0.001", "0.01", "0.1", "1"]),
    (1e-7, 3e-7, ["10<sup>−7</sup>", "2×10<sup>−7</sup>", "3×10<sup>−7</sup>"]),
])
def test_log_scale_ticks(lo, hi, expected):
    ticks, (r0, r1) = log_scale(lo, hi)
    assert [tick_label(v) for v in ticks] == expected
    assert r0 <= math.log10(lo) and math.log10(hi) <= r1


def test_a_single_value_still_gets_two_ticks_around_it():
    ticks, (r0, r1) = log_scale(31.0, 31.0)
    assert len(ticks) >= 2 and min(ticks) <= 31 <= max(ticks)
    assert all(r0 <= math.log10(v) <= r1 for v in ticks)


def test_a_numeric_axis_with_gaps_gets_the_margin_of_its_numbers_not_of_their_full_digits():
    """A curve that reaches −∞ is drawn with gaps (None): its values are still numbers, whose tick
    labels are short ("−5.12"), not categories written with every digit ("-5.115995809754082")."""
    from lmcore.figures.margins import tick_labels

    data = [{"type": "scatter", "y": np.array([-1.2039728043259361, None, -5.115995809754082], dtype=object)}]
    labels = tick_labels({}, data, "y", "y")
    assert labels and max(len(label) for label in labels) <= 6, labels  # "-5.12", not 18 digits
    scores = TokenLogProbs(["a", "b", "c"], np.log([0.3, 0.02, 0.5]), np.zeros(3, dtype=bool))
    assert cumulative_logprob_figure(scores, "en").layout.margin.l < 120
