"""The gradients page in AppTest: both languages, the extreme setting σ1 = 5, T = 1000 says
"exploded" (no exception), and the clipping lab's numbers obey the notes' rule."""
import json

import pytest

from tests.apptest_helpers import errors, run_page


def _figures(at) -> list[dict]:
    return [json.loads(el.proto.spec) for el in at.get("plotly_chart")]


def _metric(at, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def test_gradients_page_default_and_clipping_lab():
    at = run_page("gradients", "en")
    assert errors(at) == [] and not at.error
    figures = _figures(at)
    titles = [f["layout"]["title"]["text"] for f in figures]
    assert titles[0].startswith("Gradient norm vs distance") and "σ1γ = 1" in titles[0]
    assert any("cliff" in t.lower() or "one-unit" in t for t in titles)
    assert _metric(at, "σ1 of W_h (RNN)") == "1.000"  # σ1 × orthogonal: exact
    assert len(figures) == 9  # curves, 3 panels, LSTM, connectivity, cliff, norm trace, loss
    at.slider(key="cliff_threshold").set_value(5.0)
    at.select_slider(key="cliff_lr").set_value(0.02)
    at.run()
    assert errors(at) == []
    assert float(_metric(at, "Largest step, clipped (≤ η·threshold)")) <= 0.02 * 5.0 + 1e-9
    share = _metric(at, "Clipped steps")
    assert share.endswith("%") and 0 <= float(share[:-1]) <= 100


@pytest.mark.parametrize("lang,word", [("en", "exploded"), ("zh", "爆炸")])
def test_extreme_setting_shows_exploded_not_an_exception(lang, word):
    at = run_page("gradients", lang, query={"T": "1000", "s1": "5.0"})
    assert errors(at) == [] and not at.error
    assert at.select_slider(key="grad_T").value == 1000 and at.slider(key="grad_scale").value == 5.0
    warnings = " ".join(w.value for w in at.warning)
    assert word in warnings
    curves = _figures(at)[0]
    notes = " ".join(a["text"] for a in curves["layout"].get("annotations", []))
    assert word in notes
    assert "NaN" not in json.dumps(curves) and "Infinity" not in json.dumps(curves)


def test_relu_rnn_at_sigma1_five_explodes_in_the_measured_curve():
    at = run_page("gradients", "en", query={"T": "1000", "s1": "5.0", "act": "relu"})
    assert errors(at) == [] and not at.error
    warnings = " ".join(w.value for w in at.warning)
    assert "RNN: the gradient norm exploded" in warnings
