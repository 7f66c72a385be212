"""The same model on the same split gives the same perplexity on every page: the RNN & BPTT page (the
white-box float64 cells), the chain-rule page and the LSTM page's comparison (the protocol's
``perplexity``), and for an n-gram model the chain-rule, LSTM and n-gram pages — each equal to the
number the model itself computes."""
import json

import pytest

from lmcore.i18n import t
from lmcore.ngram import NgramModel
from lmcore.samples import load_sample
from lmcore.training.config import TrainConfig
from lmcore.training.persist import load_pretrained
from tests.apptest_helpers import errors, run_page, text_tables


def _metric(at, key: str) -> str:
    return next(m.value for m in at.metric if m.label == t(key, "en"))


def _shown(ppl: float) -> float:
    """A perplexity as the comparison table shows it (two decimals, as every page's metric)."""
    return float(f"{ppl:.2f}")


def _comparison(at) -> dict[str, float]:
    frame = next(df for df in text_tables(at) if t("lstm.cmp.model", "en") in df.columns)
    return dict(zip(frame[t("lstm.cmp.model", "en")], frame[t("lstm.cmp.ppl", "en")]))


@pytest.fixture(scope="module")
def english():
    corpus = load_sample("english")
    test = corpus.mapped("test")
    index = next(i for i, s in enumerate(test) if 3 <= len(s) <= 30)  # the RNN page's first sentence
    return corpus, test, index


def test_the_rnn_has_one_perplexity_on_every_page(english):
    corpus, test, index = english
    rnn = load_pretrained(corpus.key, TrainConfig(cell="rnn"))
    sentence_ppl = f"{rnn.perplexity([test[index]]).ppl:.2f}"
    split_ppl = rnn.perplexity(test).ppl

    page = run_page("rnn_bptt", "en")
    assert errors(page) == []
    assert _metric(page, "rnn_bptt.metric.ppl") == sentence_ppl
    assert _metric(page, "rnn_bptt.metric.split_ppl") == f"{split_ppl:.2f}"

    chain = run_page("chain_rule", "en", query={"part": "perplexity"})
    labels = chain.selectbox(key="chain_method").options  # as shown: the neural models are named by cell
    chain.selectbox(key="chain_method").select_index(next(i for i, label in enumerate(labels) if "RNN" in label)).run()
    chain.session_state["chain_pick"] = corpus.test[index]  # its options are token lists (AppTest formats them)
    chain.run()
    assert errors(chain) == []
    assert _metric(chain, "chain_rule.metric.ppl") == sentence_ppl

    lstm = run_page("lstm", "en", query={"part": "compare"})
    assert errors(lstm) == []
    assert _comparison(lstm)["RNN"] == _shown(split_ppl)


def test_an_ngram_model_has_one_perplexity_on_every_page(english):
    corpus, test, index = english
    kn = NgramModel.fit(corpus.mapped("train"), 3, "modified-kn")

    chain = run_page("chain_rule", "en", query={"method": "modified-kn", "n": "3", "part": "perplexity"})
    chain.session_state["chain_pick"] = corpus.test[index]
    chain.run()
    assert errors(chain) == []
    assert _metric(chain, "chain_rule.metric.ppl") == f"{kn.perplexity([test[index]]).ppl:.2f}"

    lstm = run_page("lstm", "en", query={"part": "compare"})
    assert _comparison(lstm)[t("lstm.cmp.row.mkn3", "en")] == _shown(kn.perplexity(test).ppl)
    lstm.radio(key="lstm_cmp_split").set_value("valid").run()
    valid = kn.perplexity(corpus.mapped("valid")).ppl
    assert _comparison(lstm)[t("lstm.cmp.row.mkn3", "en")] == _shown(valid)

    ngram = run_page("ngram", "en", query={"part": "sparsity"})
    assert errors(ngram) == []
    grid = next(json.loads(el.proto.spec) for el in ngram.get("plotly_chart")
                if json.loads(el.proto.spec)["layout"]["title"]["text"].startswith(t("ngram.fig.grid.title", "en")))
    heat = grid["data"][0]
    column = [label for label in grid["layout"]["xaxis"]["ticktext"]].index(t("ngram.method.modified-kn", "en"))
    assert heat["text"][heat["y"].index(3)][column] == f"{valid:.1f}"
