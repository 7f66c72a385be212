"""The RNN forward pass & BPTT page in AppTest: both languages, both models, live numbers agree."""
import json
import math

import pytest

from tests.apptest_helpers import errors, run_page


def _metric(at, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def test_rnn_page_step_through_and_truncation_window():
    at = run_page("rnn_bptt", "en")
    assert errors(at) == [] and not at.error
    T = int(_metric(at, "T (steps)"))
    table = at.dataframe[0].value
    assert len(table) == T and list(table["t"]) == list(range(1, T + 1))
    J = float(_metric(at, "J = mean J(t)"))
    assert J == pytest.approx(table["J(t)"].mean(), abs=1e-3)
    assert float(_metric(at, "PPL = exp(J)")) == pytest.approx(math.exp(J), rel=1e-3)
    assert (table["ŷ(t)[target]"] > 0).all() and (table["ŷ(t)[target]"] <= 1).all()
    full_share = _metric(at, "Share of Σ‖G‖ dropped")
    at.slider(key="rnn_window").set_value(1)
    at.slider(key="rnn_step").set_value(T)
    at.run()
    assert errors(at) == []
    assert float(_metric(at, "Share of Σ‖G‖ dropped")[:-1]) >= float(full_share[:-1])
    charts = [json.loads(el.proto.spec) for el in at.get("plotly_chart")]
    assert len(charts[2]["frames"]) == T  # client-side step-through: one frame per step
    heat = charts[3]
    assert len(heat["data"]) == 2 or T == 1  # heatmap + the truncation staircase


@pytest.mark.parametrize("lang", ["zh"])
def test_rnn_page_random_model_in_chinese(lang):
    at = run_page("rnn_bptt", lang, query={"model": "random", "s": "2"})
    assert errors(at) == [] and not at.error
    assert at.radio(key="rnn_model").value == "random"
    assert at.slider(key="rnn_sentence").value == 2
    assert len(at.get("plotly_chart")) == 5
    assert int(_metric(at, "T（步数）")) == len(at.dataframe[0].value)
    assert at.header[0].value == "逐步前向传播"
