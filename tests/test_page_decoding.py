"""The decoding page in AppTest: the textbook example first, in both languages."""
import json

import numpy as np
import pytest

from lmcore.decoding import beam_search, greedy_decode, textbook_scorer
from lmcore.figures.decoding import beam_tree_figure
from lmcore.ngram import NgramModel
from lmcore.samples import load_sample
from tests.apptest_helpers import errors, opened_with_work_made_ahead, run_page, show_part, text_tables


def _figures(at):
    return [json.loads(el.proto.spec) for el in at.get("plotly_chart")]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_decoding_page_shows_the_textbook_tree(lang):
    at = run_page("decoding", lang)
    assert errors(at) == []
    figures = _figures(at)
    assert len(figures) == 1  # the search part's tree (the sweep is the next part)
    roles = {d.get("meta", {}).get("role") for d in figures[0]["data"]}
    assert {"kept_edges", "pruned_edges", "greedy_path", "best_path", "finished_nodes"} <= roles
    text = " ".join(m.value for m in at.markdown)
    assert "0.048" in text and "0.054" in text
    nbest = text_tables(at)[0]
    assert list(nbest.iloc[0])[1] == "A C B </s>"


def test_decoding_page_beam_width_one_is_greedy():
    at = run_page("decoding", "en", query={"k": "1"})
    assert errors(at) == []
    assert at.slider(key="decoding_k").value == 1
    assert text_tables(at)[0].iloc[0, 1] == "A B C </s>"
    show_part(at, "decoding", "sweep")
    sweep = text_tables(at)[0]
    assert sweep.iloc[0, -1] > 0  # search error of greedy
    assert sweep.iloc[1, -1] == pytest.approx(0.0)


def test_decoding_page_on_the_ngram_model_with_a_prompt():
    at = run_page("decoding", "zh", query={"src": "ngram", "k": "3", "L": "6", "prompt": "the"})
    assert errors(at) == [] and not at.error
    assert at.radio(key="decoding_source").value == "ngram"
    tree = _figures(at)[0]
    nodes = [d for d in tree["data"] if d.get("meta", {}).get("role") == "kept_nodes"]
    assert nodes and len(nodes[0]["x"]) > 1
    corpus = load_sample("english")  # the page's model and prompt, decoded here directly
    model = NgramModel.fit(corpus.mapped("train"), 3, "modified-kn")
    vocab = model.vocab

    def score(prefixes):  # log P(· | <s> the y_<t) straight from the model, no adapter in between
        with np.errstate(divide="ignore"):
            return np.log(np.stack([model.distribution(["<s>", "the", *(vocab[i] for i in p)]) for p in prefixes]))

    tree = beam_search(score, 3, 6, end_id=vocab.index("</s>"), alpha=0.7)
    expected = [" ".join(vocab[i] for i in h.tokens) or "∅" for h in tree.nbest]
    assert list(text_tables(at)[0].iloc[:, 1]) == expected


def test_decoding_page_on_the_seq2seq_decoder():
    at = run_page("decoding", "en", query={"src": "seq2seq", "k": "3", "L": "10", "x": "4021"})
    assert errors(at) == [] and not at.error
    assert at.radio(key="decoding_source").value == "seq2seq"
    assert text_tables(at)[0].iloc[0, 1] == "1 2 0 4 </s>"  # the shipped reverse model gets it right
    at.text_input(key="decoding_s2s_source").input("12x").run()
    assert errors(at) == [] and at.error


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_neural_lm_decodes_a_prompt_with_its_own_chain_rule_scores(lang):
    """The n-best list's log P(y) is the LSTM's own Σ log P(y_t | <s> prompt y_<t)."""
    import math

    from lmcore.i18n import t
    from lmcore.training.config import TrainConfig
    from lmcore.training.persist import load_pretrained

    at = run_page("decoding", lang)
    at.radio(key="decoding_source").set_value("neural").run()
    at.text_input(key="decoding_prompt").set_value("the river").run()
    assert errors(at) == []
    lm = load_pretrained(at.session_state["corpus"].key, TrainConfig())
    table = text_tables(at)[0]
    top = table.iloc[0]
    output = top[t("decoding.col.output", lang)].split()
    context, logp = ["<s>", "the", "river"], 0.0
    for token in output:
        logp += math.log(lm.distribution(context)[lm.vocab.index(token)])
        context.append(token)
    assert top[t("decoding.col.logprob", lang)] == pytest.approx(logp, abs=1e-3)


def test_pruned_children_slider_acts_on_the_textbook_tree():
    """Node B of the textbook tree once showed all 4 pruned children whatever the slider said."""
    def pruned_nodes(n):
        at = run_page("decoding", "en", query={"pruned": str(n)})
        assert errors(at) == [] and at.slider(key="decoding_pruned").value == n
        tree = _figures(at)[0]
        return next(d["meta"]["nodes"] for d in tree["data"] if d.get("meta", {}).get("role") == "pruned_nodes")

    from lmcore.decoding.textbook import END, MAX_LEN

    one, three = pruned_nodes(1), pruned_nodes(3)
    assert len(one) < len(three)
    for n, drawn in ((1, one), (3, three)):
        tree = beam_search(textbook_scorer(), 2, MAX_LEN, END, pruned_per_parent=n)
        parents = [tree.parent[i] for i in drawn]
        assert len(drawn) == tree.state.count("pruned") and max(map(parents.count, parents)) == n


def test_a_move_of_the_beam_width_or_alpha_finds_its_tree_chart_made_ahead(monkeypatch):
    """server/prefetch.py: the search part hands over the tree charts one step of k or α away; once made,
    a move to one (or back) searches nothing and builds no figure, and the chart shown is the one a
    search at that k and α draws."""
    import lmcore.decoding
    from tests.apptest_fragments import run_fragment
    from ui import charts

    real_json = charts.spec_json
    at, tasks, calls = opened_with_work_made_ahead(monkeypatch, "decoding", {"k": "4", "alpha": "1.3", "L": "3"},
                                                   {"searches": (lmcore.decoding, "beam_search")})
    assert sorted(key[2:5] for key, _ in tasks) == [(3, 3, 1.3), (4, 3, 1.2), (4, 3, 1.4), (5, 3, 1.3)]
    for key, value in (("decoding_k", 5), ("decoding_k", 4), ("decoding_alpha", 1.4)):  # from k = 4, α = 1.3
        at.slider(key=key).set_value(value)
        run_fragment(at, "decoding_settings")
        assert not errors(at) and calls == {"searches": [], "figures": []}, key
    shown = _figures(at)[0]
    at.slider(key="decoding_k").set_value(8)  # not made ahead: searched and built in its run
    run_fragment(at, "decoding_settings")
    assert not errors(at) and len(calls["searches"]) == 1 and len(calls["figures"]) == 1
    score = textbook_scorer()  # the k = 4, α = 1.4 chart drawn from a search of its own
    tree, greedy = (beam_search(score, 4, 3, score.end_id, 1.4, pruned_per_parent=2),
                    greedy_decode(score, 3, score.end_id, 1.4))
    assert shown == json.loads(real_json(beam_tree_figure(tree, score.vocab, greedy.tokens, lang="en")))
