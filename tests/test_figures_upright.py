"""Chinese y-axis titles read upright: every figure builder, run with its text in Chinese, draws no
turned y-axis title with a CJK character; its title is a horizontal annotation (a column of upright
characters or a line above the plot) holding the same words, and the margin makes room for it."""
from __future__ import annotations

import importlib
import pkgutil

import pytest

from lmcore import figures
from lmcore.figures.upright import NAME, has_cjk, title_units, upright_y_titles
from lmcore.i18n import t as translate
from tests.figure_cases import case_params


@pytest.fixture
def chinese(monkeypatch):
    """Every figure module's strings in Chinese, whatever language its builder is given."""
    for info in pkgutil.iter_modules(figures.__path__):
        module = importlib.import_module(f"{figures.__name__}.{info.name}")
        if hasattr(module, "t"):
            monkeypatch.setattr(module, "t", lambda key, lang="en", **fields: translate(key, "zh", **fields))


def y_titles(fig) -> list[str]:
    return [axis.title.text for axis in fig.select_yaxes() if axis.title.text]


@pytest.mark.parametrize("name, make", case_params())
def test_no_chinese_y_title_is_turned(chinese, name, make):
    fig = make()
    assert not [title for title in y_titles(fig) if has_cjk(title)], name
    for ann in fig.layout.annotations:
        if ann.name == NAME:
            assert ann.textangle == 0 and has_cjk(ann.text), name


def test_the_next_word_chart_stacks_its_chinese_title_and_keeps_the_english_one_turned():
    from lmcore.figures.ngram import next_word_figure

    zh = next_word_figure(["a", "b"], {"mle": [0.5, 0.5]}, lang="zh")
    stacked = [a for a in zh.layout.annotations if a.name == NAME]
    assert len(stacked) == 1 and stacked[0].text == "<br>".join(title_units(translate("ngram.fig.next.x", "zh")))
    assert stacked[0].x == 0 and stacked[0].xanchor == "right" and stacked[0].xshift < 0
    en = next_word_figure(["a", "b"], {"mle": [0.5, 0.5]}, lang="en")
    assert y_titles(en) == [translate("ngram.fig.next.x", "en")]
    assert not [a for a in en.layout.annotations if a.name == NAME]
    assert zh.layout.margin.l > en.layout.margin.l - 30  # room for the column where the turned title was


def test_units_keep_latin_runs_whole_and_a_long_title_goes_above_the_plot():
    assert title_units("下一个词 w") == ["下", "一", "个", "词", "w"]
    assert title_units("P(w|h) 的值") == ["P(w|h)", "的", "值"]
    assert title_units("频率 f（对数刻度）") == ["频", "率", "f", "︵", "对", "数", "刻", "度", "︶"]
    import plotly.graph_objects as go

    fig = go.Figure(go.Scatter(x=[1, 2], y=[1, 2]), layout=dict(yaxis=dict(title="查询（query）：解码步 t（预测 y_t）"),
                                                                margin=dict(t=40)))
    upright_y_titles(fig)
    (ann,) = fig.layout.annotations
    assert ann.y == 1 and ann.yanchor == "bottom" and ann.textangle == 0
    assert fig.layout.margin.t == 64 and not fig.layout.yaxis.title.text
