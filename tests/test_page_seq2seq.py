"""The seq2seq page in AppTest, on the shipped models, in both languages."""
import json
import math

import pytest

from lmcore.i18n import t
from lmcore.seq2seq.evaluation import evaluate_by_length
from lmcore.seq2seq.pretrained import EVAL_N, EVAL_SEED, RECIPES, pretrained, shipped_evaluation
from lmcore.seq2seq.tasks import TASKS
from server.training import trained_seq2seq
from tests.apptest_fragments import run_fragment
from tests.apptest_helpers import errors, finish_jobs, run_page, show_part, text_tables


@pytest.fixture(autouse=True)
def no_time_cap(monkeypatch):
    """A training run in a test is never cut by the server's time cap, however busy the machine."""
    from server.job_queue import scheduler

    monkeypatch.setattr(scheduler(), "time_cap", 1e6)


def _figures(at):
    return [json.loads(el.proto.spec) for el in at.get("plotly_chart")]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_seq2seq_page_shows_the_bottleneck_and_the_attention(lang):
    at = run_page("seq2seq", lang, timeout=300)
    assert errors(at) == [] and not at.error
    figures = _figures(at)
    assert len(figures) == 2  # the first part (tab): accuracy and log-likelihood by length
    accuracy = {d["meta"]["variant"]: d["y"] for d in figures[0]["data"]}
    assert set(accuracy) == {"none", "dot", "additive"}
    assert accuracy["dot"][-1] > accuracy["none"][-1]
    assert any(r"\prod_{t=1}" in latex.value and "=" in latex.value for latex in at.latex)
    attention = next(latex.value for latex in at.latex if r"\alpha_{tj}" in latex.value)
    assert t("seq2seq.attention_or", lang) in attention and (lang == "en" or " or " not in attention)
    by_length = text_tables(at)[0]  # the accuracy curves as a table: a row per source length
    assert list(by_length.iloc[:, 0]) == figures[0]["data"][0]["x"]
    for variant, ys in accuracy.items():
        assert list(by_length[t(f"seq2seq.variant.{variant}", lang)]) == pytest.approx(ys, abs=5e-4)
    show_part(at, "seq2seq", "example")
    factors = text_tables(at)[0]  # P(y_t | y_<t, x) per target token, then ln of it
    source = list(at.session_state["seq2seq_source_reverse"])
    model, _ = pretrained("reverse", at.radio(key="seq2seq_variant").value)
    target = source[::-1]  # the reverse task
    assert [str(w) for w in factors.iloc[:len(target), 1]] == target
    assert factors.iloc[:, 3].sum() == pytest.approx(model.sentence_logprob(source, target), abs=1e-3)
    assert list(factors.iloc[:, 3]) == pytest.approx([math.log(p) for p in factors.iloc[:, 2]], abs=2e-3)
    figures = _figures(at)
    assert len(figures) == 1 and figures[0]["data"][0]["type"] == "heatmap"  # the attention weights
    beam = text_tables(at)[-1]
    assert len(beam) == 3  # beam width 3: three finished hypotheses
    for output, logprob in zip(beam.iloc[:, 0], beam.iloc[:, 1]):  # each scored again by teacher forcing
        assert logprob == pytest.approx(model.sentence_logprob(source, output.split()), abs=1e-4)


@pytest.mark.parametrize("task", TASKS)
def test_every_task_opens_on_shipped_models_without_decoding_a_test_set(monkeypatch, task):
    """The bottleneck curves are shipped: opening the page evaluates nothing (a retrained file
    without its measured curve would be evaluated here, and this test would fail)."""
    import lmcore.seq2seq.evaluation

    def forbidden(*args, **kwargs):
        raise AssertionError("the page evaluated a model while opening")

    monkeypatch.setattr(lmcore.seq2seq.evaluation, "evaluate_by_length", forbidden)
    at = run_page("seq2seq", "en", timeout=300, query={"task": task})
    assert errors(at) == [] and not at.error
    shipped = {variant for t_, variant in RECIPES if t_ == task}
    assert {d["meta"]["variant"] for d in _figures(at)[0]["data"]} == shipped
    assert not at.info or all(t("seq2seq.no_models", "en", section="")[:20] not in i.value for i in at.info)


def test_shipped_curves_are_those_of_the_shipped_weights():
    """evaluation.json against a fresh evaluation of one shipped model (same examples, same seed)."""
    model, recipe = pretrained("copy", "none")
    fresh = evaluate_by_length(model, "copy", range(recipe.min_len, recipe.max_len + 1), EVAL_N, EVAL_SEED)
    shipped = shipped_evaluation("copy", "none")
    assert [r.length for r in shipped] == [r.length for r in fresh]
    for s, f in zip(shipped, fresh):
        assert abs(s.accuracy - f.accuracy) <= 1.5 / EVAL_N  # one example may flip on another CPU
        assert s.token_loglik == pytest.approx(f.token_loglik, abs=1e-3)
    assert shipped[-1].accuracy < shipped[0].accuracy - 0.5  # the bottleneck shows: 12 digits mostly fail


def test_seq2seq_page_without_attention_and_with_bad_input():
    at = run_page("seq2seq", "en", timeout=300, query={"model": "none", "part": "example"})
    assert errors(at) == []
    assert at.radio(key="seq2seq_variant").value == "none"
    assert len(_figures(at)) == 0 and at.info  # no attention: no weights to draw, a note says so
    at.text_input(key="seq2seq_source_reverse").input("12a4").run()
    assert errors(at) == [] and at.error


def test_beam_width_reruns_and_resends_the_beam_search_only():
    at = run_page("seq2seq", "en", timeout=300, query={"part": "example"})
    at.slider(key="seq2seq_k").set_value(1)
    run = run_fragment(at, "seq2seq_beam")
    assert errors(at) == [] and run.deltas and not run.outside
    assert not at.get("plotly_chart")  # the curves and the attention map were not resent
    assert len(text_tables(at)[-1]) == 1  # one hypothesis for k = 1
    at.slider(key="seq2seq_k").set_value(4)
    assert not run_fragment(at, "seq2seq_beam").outside
    assert len(text_tables(at)[-1]) == 4


def test_training_a_model_in_the_app_lists_it_and_measures_it():
    at = run_page("seq2seq", "zh", timeout=300, query={"task": "copy", "part": "example"})
    assert errors(at) == [] and not at.info  # copy ships its models
    at.radio(key="seq2seq_variant").set_value("dot")
    at.text_input(key="seq2seq_source_copy").set_value("352").run()  # the shipped model's example first
    assert len(text_tables(at)) == 2  # its factors and beam (the next one, on her model, must not be these)
    at.slider(key="seq2seq_train_len_copy").set_value(3)
    at.slider(key="seq2seq_train_steps").set_value(200)
    at.selectbox(key="seq2seq_train_variant").set_value("dot")
    at.button(key="seq2seq_train").click().run()
    finish_jobs(at)
    assert errors(at) == [] and at.success
    listed = " ".join(m.value for m in at.markdown)
    assert t("seq2seq.trained_here", "zh", variant=t("seq2seq.variant.dot", "zh"), lo=2, hi=3, steps=200) in listed
    show_part(at, "seq2seq", "bottleneck")
    curves = {d["meta"]["variant"]: d["x"] for d in _figures(at)[0]["data"]}
    assert curves["dot"] == [2, 3] and curves["none"] == list(range(2, 13))  # ours (measured in its run), shipped
    show_part(at, "seq2seq", "example")  # the example on her model, not what the shipped one made of it
    assert at.text_input(key="seq2seq_source_copy").value == "352"  # her model's lengths: 2 to 3
    ours = trained_seq2seq(at.session_state["owner_id"], "copy", "dot")[0]
    source = list(at.session_state["seq2seq_source_copy"])
    factors, beam = text_tables(at)[0], text_tables(at)[-1]
    assert errors(at) == [] and factors.iloc[:, 3].sum() == pytest.approx(ours.sentence_logprob(source, source), abs=1e-3)
    for output, logprob in zip(beam.iloc[:, 0], beam.iloc[:, 1]):
        assert logprob == pytest.approx(ours.sentence_logprob(source, output.split()), abs=1e-4)
