"""The RNN forward pass & BPTT page in AppTest: the shipped RNN of lmcore.training in its white-box view,
live numbers against the model itself, every control changes the page, fragments rerun alone, tiny corpora."""
import json
import math

import pytest

from lmcore.recurrent.rnn_lm import run_sentence, white_box
from lmcore.samples import load_sample
from lmcore.training.config import TrainConfig
from lmcore.training.persist import load_pretrained
from tests.apptest_helpers import errors, run_page, show_part, text_tables
from lmcore.i18n import t
from tests.fragments import elements, fragment_of, page_output, rerun_each_section, sent_messages


def _metric(at, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def _charts(at) -> dict[str, dict]:
    """Charts by their title (or first subplot title), not by position."""
    out = {}
    for el in at.get("plotly_chart"):
        spec = json.loads(el.proto.spec)
        title = spec["layout"].get("title", {}).get("text") or spec["layout"]["annotations"][0]["text"]
        out[title] = spec
    return out


def _sentence(corpus, idx=0):
    return [s for s in corpus.mapped("test") if 3 <= len(s) <= 30][idx]


def test_rnn_page_shows_the_shipped_rnn_step_by_step():
    at = run_page("rnn_bptt", "en")
    assert errors(at) == [] and not at.error
    corpus = load_sample("english")
    lm = load_pretrained(corpus.key, TrainConfig(cell="rnn"))
    sentence = _sentence(corpus)
    T = int(_metric(at, "T (steps)"))
    assert T == len(sentence) + 1  # <s> w1 … wn predicts w1 … wn </s>
    show_part(at, "rnn_bptt", "topk")  # the per-step table sits under the top-k animation
    table = text_tables(at)[0]
    assert list(table["input x(t)"]) == ["<s>", *sentence] and list(table["target x(t+1)"]) == [*sentence, "</s>"]
    scores = lm.sentence_logprobs(sentence)  # the torch network, float32: an independent computation
    assert list(-table["J(t)"]) == pytest.approx(list(scores.logprobs), abs=1e-4)
    assert float(_metric(at, "J = mean J(t)")) == pytest.approx(-scores.total / T, abs=1e-4)
    assert _metric(at, "PPL = exp(J)") == f"{math.exp(-scores.total / T):.2f}"
    assert _metric(at, "Model PPL on the test split") == f"{lm.perplexity(corpus.mapped('test')).ppl:.2f}"
    show_part(at, "rnn_bptt", "step")
    at.slider(key="rnn_step").set_value(T).run()
    assert errors(at) == []
    show_part(at, "rnn_bptt", "bptt")
    full_share = _metric(at, "Share of Σ‖G‖ dropped")
    at.slider(key="rnn_window").set_value(1).run()
    assert errors(at) == []
    assert float(_metric(at, "Share of Σ‖G‖ dropped")[:-1]) > float(full_share[:-1])
    heat = _charts(at)["BPTT contributions ‖∂J(t)/∂W_h through step k‖"]
    assert [d["type"] for d in heat["data"]] == ["heatmap", "scatter"]  # + the truncation staircase
    show_part(at, "rnn_bptt", "topk")
    animation = next(spec for spec in _charts(at).values() if spec.get("frames"))
    assert len(animation["frames"]) == T  # client-side step-through: one frame per step
    at.slider(key="rnn_topk").set_value(3).run()
    show_part(at, "rnn_bptt", "step")
    show_part(at, "rnn_bptt", "topk")
    assert at.slider(key="rnn_topk").value == 3  # kept while its tab was closed


def test_rnn_page_random_model_in_chinese():
    at = run_page("rnn_bptt", "zh", query={"model": "random", "s": "2", "corpus": "chinese"})
    assert errors(at) == [] and not at.error
    assert at.radio(key="rnn_model").value == "random"
    assert at.slider(key="rnn_sentence").value == 2
    corpus = load_sample("chinese")
    from lmcore.training.loop import untrained_lm

    lm = untrained_lm(corpus.mapped("train"), corpus.vocab.itos, TrainConfig(cell="rnn"), corpus.key)
    run = run_sentence(white_box(lm), _sentence(corpus, 2))
    assert _metric(at, "PPL = exp(J)") == f"{run.perplexity:.2f}"
    assert at.header[0].value == "逐步前向传播"
    show_part(at, "rnn_bptt", "topk")
    assert int(_metric(at, "T（步数）")) == run.T == len(text_tables(at)[0])


CONTROLS = [("rnn_model", "random", None), ("rnn_sentence", 3, None), ("rnn_step", 2, "step"), ("rnn_topk", 3, "topk"),
            ("rnn_window", 2, "bptt")]  # (key, value, the part (tab) it is in; None: above the tabs)


def test_every_control_changes_the_page():
    at = run_page("rnn_bptt", "en", query={"corpus": "synthetic"})
    for key, value, part in CONTROLS:
        if part:
            show_part(at, "rnn_bptt", part)
        before = page_output(at)
        widget = at.radio(key=key) if key == "rnn_model" else at.slider(key=key)
        widget.set_value(value)
        at.run()
        assert errors(at) == [], key
        assert page_output(at) != before, key


SECTIONS = {  # a control of each fragment → its part, the new value and the titles of the charts it redraws
    "rnn_step": ("step", 2, ["Hidden state h(t) over time (units × steps)", "Per-step loss J(t) = −log ŷ(t)[x(t+1)]"]),
    "rnn_topk": ("topk", 3, ["Hidden state h(t) over time (units × steps)"]),  # the animation's first subplot title
    "rnn_window": ("bptt", 2, ["BPTT contributions ‖∂J(t)/∂W_h through step k‖",
                               "Truncated BPTT: relative error of ∂J/∂W_h"]),
}


def _title(spec: str) -> str:
    layout = json.loads(spec)["layout"]
    return layout.get("title", {}).get("text") or layout["annotations"][0]["text"]


def test_a_slider_reruns_only_its_section():
    at = run_page("home", "en", query={"corpus": "synthetic"})
    at.switch_page("app_pages/rnn_bptt.py")
    with sent_messages() as full:
        at.run()
    assert fragment_of(full, "rnn_sentence") == ""  # the sentence changes everything: a full rerun
    assert len(elements(full, "plotly_chart")) == 2  # the first part's (tab's) charts only
    runs = rerun_each_section(at, "rnn_bptt", SECTIONS, lambda at, key, value: at.slider(key=key).set_value(value))
    for key, (_, _, sent) in runs.items():
        assert [_title(c.spec) for c in elements(sent, "plotly_chart")] == SECTIONS[key][2], key


@pytest.mark.parametrize("text", [
    " ".join(f"Sentence number {i} is short." for i in range(10)),  # a handful of test sentences
    "word " * 30 + ". And again.",  # one long sentence
])
def test_tiny_uploads_give_messages_not_widget_errors(text):
    at = run_page("home", "en")
    at.sidebar.get("file_uploader")[0].set_value(("tiny.txt", text.encode(), "text/plain"))
    at.run()
    at.switch_page("app_pages/rnn_bptt.py").run()
    assert errors(at) == []
    corpus = at.session_state["corpus"]
    candidates = [s for s in corpus.mapped("test") if 3 <= len(s) <= 30]
    if not candidates:
        assert [w.value for w in at.warning] == [t("rnn_bptt.no_sentence", "en", lo=3, hi=30)]
    elif len(candidates) == 1:
        assert not at.get("slider") or all(s.key != "rnn_sentence" for s in at.slider)
        assert t("rnn_bptt.one_sentence", "en") in [c.value for c in at.caption]
    else:
        assert at.slider(key="rnn_sentence").max == len(candidates) - 1
