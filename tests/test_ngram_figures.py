"""Figure builders return the expected traces; analysis helpers checked against brute force."""
from collections import Counter

import numpy as np
import pytest

from lmcore.figures.ngram import (chain_rule_bars, continuation_figure, cumulative_logprob_figure,
                                  next_word_figure, path_text, perplexity_heatmap, running_perplexity_figure,
                                  sparsity_figure, uniform_die_figure)
from lmcore.lm_protocol import LanguageModel, perplexity_of
from lmcore.ngram import METHODS, NgramModel, count_ngrams
from lmcore.ngram.analysis import continuation_counts, perplexity_grid, top_by, unseen_share_by_order
from lmcore.ngram.compare import next_word_table
from lmcore.ngram.explain import kn_terms, zero_reasons
from tests.test_ngram_normalisation import small_corpus

TRAIN, HELD = small_corpus(150, seed=21), small_corpus(30, seed=22)
COUNTS = count_ngrams(TRAIN, 5)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_figures_have_expected_traces(lang):
    lm = NgramModel(COUNTS, 3, "mle")
    scores = lm.sentence_logprobs(HELD[0] + ["oov-word"])
    fig = chain_rule_bars(scores, lang)
    assert fig.data[0].type == "bar" and list(fig.data[0].y) == pytest.approx(scores.probs.tolist())
    assert list(fig.layout.xaxis.ticktext) == scores.tokens[:-1] + ["&lt;/s&gt;"]  # Plotly reads </s> as markup
    assert "OOV → &lt;unk&gt;" in fig.data[0].hovertext[-2]
    cum = cumulative_logprob_figure(scores, lang).data[0].y
    assert cum[0] == pytest.approx(scores.logprobs[0])
    run = running_perplexity_figure(scores, lang).data[0].y
    assert run[0] == pytest.approx(1 / scores.probs[0])
    die = uniform_die_figure(7.4, lang)
    assert len(die.data[0].y) == 7 and die.data[0].y[0] == pytest.approx(1 / 7)
    assert len(uniform_die_figure(1000, lang).data[0].y) == 60
    nxt = next_word_figure(["a", "<b>", "a"], {"mle": np.array([.5, .2, .1]), "add-delta": np.array([.4, .3, .1])}, lang)
    assert [len(t.x) for t in nxt.data] == [3, 3] and list(nxt.layout.yaxis.ticktext) == ["a", "&lt;b&gt;", "a"]
    assert list(sparsity_figure([0.1, 0.5, 0.9], lang).data[0].x) == [1, 2, 3]
    grid = np.array([[10.0, np.inf], [5.0, 4.0]])
    heat = perplexity_heatmap([1, 2], ["mle", "kn-notes"], grid, floor=3.3, lang=lang)
    assert heat.data[0].text[0][1] == "∞" and "3.30" in heat.layout.title.text
    cc = continuation_counts(COUNTS)
    cont = continuation_figure(cc.words, cc.count, cc.continuation, [2, 3], lang)
    assert len(cont.data) == 2 and len(cont.data[1].x) == 2


def test_path_text_and_zero_reasons():
    lm = NgramModel(COUNTS, 3, "mle")
    sent = ["w0", "w0", "w0", "w0", "oov-word"]
    scores = lm.sentence_logprobs(sent)
    reasons = zero_reasons(scores)
    assert [r.kind for r in reasons if r.token == "oov-word"] == ["oov"]
    for r in reasons:
        assert scores.probs[r.index] == 0
        if r.kind == "unseen_ngram":
            assert lm.count(r.context) > 0 and lm.count(r.context + [r.token]) == 0
    assert "OOV" in path_text(scores, 4, "en")
    assert isinstance(lm, LanguageModel)
    assert perplexity_of([scores]).ppl == np.inf


def test_sparsity_and_continuation_against_brute_force():
    shares = unseen_share_by_order(COUNTS, HELD, 4)
    for n in (2, 3, 4):
        train_grams = {tuple(p[i:i + n]) for s in TRAIN for p in [["<s>"] + s + ["</s>"]] for i in range(len(p) - n + 1)}
        held = [tuple(p[i:i + n]) for s in HELD for p in [["<s>"] + s + ["</s>"]] for i in range(len(p) - n + 1)]
        assert shares[n - 1] == pytest.approx(np.mean([g not in train_grams for g in held]))
    cc = continuation_counts(COUNTS)
    left = Counter()
    for g in {tuple(p[i:i + 2]) for s in TRAIN for p in [["<s>"] + s + ["</s>"]] for i in range(len(p) - 1)}:
        left[g[1]] += 1
    assert dict(zip(cc.words, cc.continuation.tolist())) == {w: left.get(w, 0) for w in cc.words}
    assert cc.words[top_by(cc, "continuation", 1)[0]] == max((w for w in cc.words[2:]), key=lambda w: left[w])


def test_next_word_table_and_grid():
    models = {m: NgramModel(COUNTS, 2, m) for m in METHODS}
    table = next_word_table(models, ["w1"], n_rows=5)
    assert table.context_count == models["mle"].context_count(["w1"])
    for m in METHODS:
        total = table.probs[m].sum() + table.others[m]
        assert total == pytest.approx(table.sums[m])
    assert table.unseen_mass["mle"] == 0 and table.sums["kn-notes"] > 1
    grid = perplexity_grid(COUNTS, HELD, [1, 2], ["mle", "modified-kn"])
    assert grid[1, 1] == pytest.approx(NgramModel(COUNTS, 2, "modified-kn").perplexity(HELD).ppl)


def test_kn_terms_reproduce_the_probability():
    lm = NgramModel(COUNTS, 3, "kn-notes", discount=0.6)
    for word in ["w0", "w7", "</s>", "oov"]:
        k = kn_terms(lm, word, ["<s>", "w3"])
        value = max(k.count - k.discount, 0) / k.context_count + k.lam * k.lower if k.seen else k.lower
        assert value == pytest.approx(lm.prob(word, ["<s>", "w3"]), abs=1e-12)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_table_frame_rows(lang):
    from lmcore.i18n import t
    from lmcore.ngram.compare import table_frame

    models = {m: NgramModel(COUNTS, 2, m) for m in METHODS}
    table = next_word_table(models, ["<s>"], n_rows=4, n_unseen=2)
    frame = table_frame(table, lang)
    assert len(frame) == len(table.words) + 3
    assert frame.iloc[-1, 0] == t("ngram.table.sum", lang) and frame.iloc[-2, 0] == t("ngram.table.unseen", lang)
    unseen = frame.iloc[-2]  # Σ P(w | <s>) over the words never seen after <s>, from each model itself
    seen = models["mle"].distribution(["<s>"]) > 0
    for m, lm in models.items():
        assert unseen[t(f"ngram.method.{m}", lang)] == pytest.approx(lm.distribution(["<s>"])[~seen].sum(), abs=1e-12)
        if m != "kn-notes":  # a distribution: what the seen words leave
            assert unseen[t(f"ngram.method.{m}", lang)] == pytest.approx(1 - lm.distribution(["<s>"])[seen].sum(), abs=1e-12)
    assert unseen[t("ngram.method.mle", lang)] == 0 and unseen[t("ngram.method.add-delta", lang)] > 0
    assert unseen[t("ngram.table.count", lang)] == 0
    assert frame[t("ngram.table.count", lang)].iloc[-1] == models["mle"].context_count(["<s>"])
    assert frame[t("ngram.method.modified-kn", lang)].iloc[-1] == pytest.approx(1.0)
    # the two unseen rows are MLE zeros
    assert (frame[t("ngram.method.mle", lang)].iloc[len(table.words) - 2:len(table.words)] == 0).all()


def test_path_text_names_the_order_that_produced_each_probability():
    """add-δ trigram: an unseen context gives the uniform 1/|V|; modified KN: an unseen trigram
    context backs off to the bigram."""
    add = NgramModel(COUNTS, 3, "add-delta")
    scores = add.sentence_logprobs(["w0", "oov-a", "oov-b", "w1"])
    assert scores.context_order.tolist()[:4] == [2, 3, 0, 0]  # contexts with an OOV never seen
    assert scores.probs[3] == pytest.approx(1 / len(add.vocab))
    assert "1/|V|" in path_text(scores, 3, "en")
    kn = NgramModel(COUNTS, 3, "modified-kn")
    s = kn.sentence_logprobs(["oov-a", "w1", "w2"])  # (oov-a, w1) unseen, (w1) seen as a context
    assert kn.context_count(["w1"]) > 0
    assert s.context_order[2] == 2 and s.available_order[2] == 3
    assert "3-gram context unseen, used 2-gram" in path_text(s, 2, "en")


def _followers(sentences, context):
    """Every word that follows ``context`` in the training text (one <s>, one </s> per sentence)."""
    out = []
    for s in sentences:
        tokens = ["<s>", *s, "</s>"]
        for i in range(len(context), len(tokens)):
            if tokens[i - len(context):i] == context:
                out.append(tokens[i])
    return out


@pytest.mark.parametrize("order", [2, 3, 4, 5])
def test_frequent_contexts_rank_by_distinct_followers_then_count_even_when_the_last_context_is_a_dead_end(order):
    """The last context row ending in </s> (no row in the next table) made np.add.reduceat read past
    the end (an upload crashed the n-gram page); contexts come N1+(h •) first, then C(h •)."""
    from lmcore.ngram.compare import frequent_contexts

    sentences = [["e", "b"], ["f"], ["b", "f", "g", "f"], ["h", "h"], ["a", "a", "b"]]
    model = NgramModel.fit(sentences, order, "mle")
    contexts = frequent_contexts(model, 30)
    assert contexts and all(len(h) == order - 1 for h in contexts)
    ranks = []
    for h in contexts:
        follow = _followers(sentences, h)
        assert follow, h  # every context shown was followed by something
        ranks.append((len(set(follow)), len(follow)))
    assert ranks == sorted(ranks, reverse=True)


@pytest.mark.parametrize("lang, name", [("en", "token x_t of the sentence"), ("zh", "句中的词元 x_t")])
def test_the_chain_rule_charts_name_their_token_axis(lang, name):
    from tests.figure_cases import running_ppl_case

    scores = running_ppl_case()
    for build in (chain_rule_bars, cumulative_logprob_figure, running_perplexity_figure):
        fig = build(scores, lang=lang)
        assert fig.layout.xaxis.title.text == name and fig.layout.yaxis.title.text, build.__name__
