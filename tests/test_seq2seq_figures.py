"""Seq2seq figures: named axes, integer positions for repeated tokens, one line per variant."""
import pytest
import torch

from lmcore.figures.upright import NAME as UPRIGHT
from lmcore.figures.seq2seq import attention_heatmap, length_curves
from lmcore.i18n import t
from lmcore.seq2seq.evaluation import LengthResult
from lmcore.seq2seq.model import Seq2Seq, Seq2SeqConfig
from lmcore.seq2seq.scoring import factorise


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_attention_heatmap_axes(lang):
    torch.manual_seed(0)
    model = Seq2Seq(Seq2SeqConfig("dot", embed=8, hidden=12)).eval()
    f = factorise(model, list("1121"), list("1211"))
    fig = attention_heatmap(f.attention, f.source, f.target, lang)
    heat = fig.data[0]
    assert list(heat.x) == [0, 1, 2, 3] and list(heat.y) == [0, 1, 2, 3, 4]
    assert list(fig.layout.xaxis.ticktext) == ["1", "1", "2", "1"]
    assert fig.layout.yaxis.ticktext[-1] == "&lt;/s&gt;"
    assert fig.layout.xaxis.title.text == t("seq2seq.fig.key_axis", lang)
    upright = [a.text for a in fig.layout.annotations if a.name == UPRIGHT]  # a Chinese title reads upright
    assert (fig.layout.yaxis.title.text or upright[0]) == t("seq2seq.fig.query_axis", lang)
    assert [sum(row) for row in heat.z] == pytest.approx([1.0] * 5)


def test_length_curves_one_trace_per_variant():
    rows = {"none": [LengthResult(2, 1.0, -0.01, 10), LengthResult(3, 0.5, -0.4, 10)],
            "dot": [LengthResult(2, 1.0, -0.01, 10), LengthResult(3, 0.9, -0.1, 10)]}
    acc = length_curves(rows, "accuracy", "zh")
    assert [d.meta["variant"] for d in acc.data] == ["none", "dot"]
    assert list(acc.data[0].y) == [1.0, 0.5]
    ll = length_curves(rows, "token_loglik")
    assert list(ll.data[1].y) == [-0.01, -0.1]
    assert ll.layout.xaxis.title.text == t("seq2seq.fig.length_axis", "en")
