"""The seq2seq page in AppTest, on the shipped reverse models, in both languages."""
import json

import pytest

from lmcore.seq2seq.pretrained import pretrained
from tests.apptest_helpers import finish_jobs, errors, run_page


def _figures(at):
    return [json.loads(el.proto.spec) for el in at.get("plotly_chart")]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_seq2seq_page_shows_the_bottleneck_and_the_attention(lang):
    at = run_page("seq2seq", lang)
    assert errors(at) == [] and not at.error
    figures = _figures(at)
    assert len(figures) == 3  # accuracy, log-likelihood, attention heatmap
    accuracy = {d["meta"]["variant"]: d["y"] for d in figures[0]["data"]}
    assert set(accuracy) == {"none", "dot", "additive"}
    assert accuracy["dot"][-1] > accuracy["none"][-1]
    assert figures[2]["data"][0]["type"] == "heatmap"
    assert any(r"\prod_{t=1}" in latex.value and "=" in latex.value for latex in at.latex)
    beam = at.dataframe[-1].value
    source = list(at.session_state["seq2seq_source_reverse"])
    model, _ = pretrained("reverse", at.radio(key="seq2seq_variant").value)
    assert len(beam) == 3  # beam width 3: three finished hypotheses
    for output, logprob in zip(beam.iloc[:, 0], beam.iloc[:, 1]):  # each scored again by teacher forcing
        assert logprob == pytest.approx(model.sentence_logprob(source, output.split()), abs=1e-4)


def test_seq2seq_page_without_attention_and_with_bad_input():
    at = run_page("seq2seq", "en", query={"model": "none"})
    assert errors(at) == []
    assert at.radio(key="seq2seq_variant").value == "none"
    assert len(_figures(at)) == 2 and at.info
    at.text_input(key="seq2seq_source_reverse").input("12a4").run()
    assert errors(at) == [] and at.error


def test_training_a_model_in_the_app():
    at = run_page("seq2seq", "zh", query={"task": "copy"})
    assert errors(at) == [] and at.info  # no shipped copy model yet
    at.slider(key="seq2seq_train_len_copy").set_value(3)
    at.slider(key="seq2seq_train_steps").set_value(200)
    at.selectbox(key="seq2seq_train_variant").set_value("dot")
    at.button(key="seq2seq_train").click().run()
    finish_jobs(at)
    assert errors(at) == [] and at.success
    figures = _figures(at)
    assert [d["meta"]["variant"] for d in figures[0]["data"]] == ["dot"]
    assert figures[0]["data"][0]["x"] == [2, 3]
