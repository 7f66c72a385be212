"""Every figure builder of lmcore.figures with inputs a page could give it (small, fast, seeded).

``CASES[name]`` lists (label, factory) pairs; each factory returns one Figure. Several cases per
builder cover the ranges where Plotly's automatic log ticks misread: a running perplexity near 31,
a training curve falling from ~1500 to ~8, norms from 1e-250 to 1e300.
"""
from __future__ import annotations

import importlib
import inspect
import pkgutil

import numpy as np

from lmcore import figures
from lmcore.corpus.stats import PowerLaw
from lmcore.lm_protocol import TokenLogProbs


def builders() -> dict[str, object]:
    """Public functions of lmcore.figures.* that build a Plotly Figure, by ``module.name`` (not the
    helpers of ``style``, ``margins`` and ``upright`` that restyle a given figure)."""
    found = {}
    for info in pkgutil.iter_modules(figures.__path__):
        if info.name in ("style", "margins", "upright"):
            continue
        module = importlib.import_module(f"{figures.__name__}.{info.name}")
        for name, fn in inspect.getmembers(module, inspect.isfunction):
            if fn.__module__ == module.__name__ and not name.startswith("_") \
                    and str(inspect.signature(fn).return_annotation) in ("go.Figure", "plotly.graph_objects.Figure"):
                found[f"{info.name}.{name}"] = fn
    return found


def _scores(logprobs, tokens=None) -> TokenLogProbs:
    logprobs = np.asarray(logprobs, dtype=float)
    tokens = tokens or [f"w{i}" for i in range(len(logprobs) - 1)] + ["</s>"]
    return TokenLogProbs(tokens, logprobs, np.zeros(len(logprobs), dtype=bool))


def running_ppl_case() -> TokenLogProbs:
    """A sentence whose running perplexity climbs from ~5 to ~100 and ends near 31 (issue 15)."""
    ppl = [5.0, 12.0, 8.0, 11.0, 45.0, 60.0, 90.0, 100.0, 55.0, 31.0]
    t = np.arange(1, len(ppl) + 1)
    cum = -t * np.log(ppl)
    return _scores(np.diff(cum, prepend=0.0), ['"', "we", "will", "be", "late", "for", "school", "!", '"', "</s>"])


def _corpus():
    from lmcore.figures import corpus as f

    ranks = np.arange(1, 1600, dtype=float)
    freqs = np.maximum(1.0, np.round(1200 / ranks))
    n = np.linspace(100, 17000, 40)
    return {
        "corpus.zipf_figure": [("english-like", lambda: f.zipf_figure(ranks, freqs, PowerLaw(-1.0, np.log(1200.0)))),
                               ("tiny", lambda: f.zipf_figure(np.arange(1.0, 6.0), np.array([9.0, 5, 4, 3, 2]), PowerLaw(-1.0, 2.2)))],
        "corpus.heaps_figure": [("", lambda: f.heaps_figure(n, 8 * n ** 0.6, PowerLaw(0.6, np.log(8.0))))],
        "corpus.length_histogram": [("", lambda: f.length_histogram(np.array([3, 5, 8, 12, 12, 30])))],
    }


def _decoding():
    from lmcore.decoding import beam_search, beam_width_sweep, exhaustive_optimum, textbook_scorer
    from lmcore.decoding.textbook import END, GREEDY_PATH, MAX_LEN, VOCAB
    from lmcore.figures import decoding as f

    score = textbook_scorer()
    return {
        "decoding.beam_tree_figure": [
            ("k=2", lambda: f.beam_tree_figure(beam_search(score, 2, MAX_LEN, END), VOCAB, GREEDY_PATH)),
            ("zh", lambda: f.beam_tree_figure(beam_search(score, 3, MAX_LEN, END, pruned_per_parent=1), VOCAB, lang="zh")),
        ],
        "decoding.beam_sweep_figure": [
            ("", lambda: f.beam_sweep_figure(beam_width_sweep(score, [1, 2, 3], MAX_LEN, END),
                                             exhaustive_optimum(score, MAX_LEN, END), VOCAB)),
        ],
    }


def _gradients():
    from lmcore.figures import gradients as f
    from lmcore.recurrent.cliff import descend, loss_surface
    from lmcore.recurrent.clip_run import TrainingLog
    from lmcore.recurrent.gradient_flow import curves_over_seeds
    from lmcore.recurrent.weights import CellSpec

    def bands(scale, act, T, cells=("rnn",)):
        return {c: curves_over_seeds(CellSpec(c, 8, 4, "orthogonal", scale, act), T, 1.0, [0, 1]) for c in cells}

    steps = np.arange(1, 41)
    logs = {"unclipped": TrainingLog(np.linspace(7, 4, 40), 10 ** np.linspace(-0.5, 1.8, 40), np.zeros(40, bool), None, None),
            "clipped": TrainingLog(np.linspace(7, 3.8, 40), 10 ** np.linspace(-0.4, 1.2, 40), steps % 2 == 0, 1.0, None)}
    surface = loss_surface((0.0, 12.0), (-8.0, 2.0), 20)
    paths = {"plain": descend((10.0, -3.0), 0.01, 30), "clipped": descend((10.0, -3.0), 0.01, 30, threshold=20.0)}
    return {
        "gradients.gradient_curves_figure": [("vanishing", lambda: f.gradient_curves_figure(bands(0.9, "tanh", 60), 0.9, 1.0)),
                                             ("exploding", lambda: f.gradient_curves_figure(bands(5.0, "identity", 600), 5.0, 1.0)),
                                             ("critical", lambda: f.gradient_curves_figure(bands(1.0, "relu", 40), 1.0, 1.0, "zh")),
                                             ("three cells", lambda: f.gradient_curves_figure(
                                                 bands(1.0, "tanh", 100, ("rnn", "lstm", "gru")), 1.0, 1.0, "zh"))],
        "gradients.eigenvalue_figure": [("", lambda: f.eigenvalue_figure(np.array([0.5 + 0.5j, 0.5 - 0.5j, -0.3]), 0.8))],
        "gradients.per_step_figure": [("deriv", lambda: f.per_step_figure(np.linspace(0.3, 0.9, 20), 1.0, "deriv")),
                                      ("jacobian", lambda: f.per_step_figure(np.linspace(0.45, 1.3, 20), 1.0, "jacobian"))],
        "gradients.connectivity_figure": [("", lambda: f.connectivity_figure(["a", "b", "c"], {"rnn": np.array([1e-3, 1e-1, 1.0])}, "c"))],
        "gradients.forget_gate_figure": [("", lambda: f.forget_gate_figure({"exact": np.linspace(0.5, 0.9, 10), "forget": np.linspace(0.5, 0.9, 10),
                                                                            "relative_error": np.linspace(0.0, 0.1, 10)}))],
        "gradients.cliff_figure": [("", lambda: f.cliff_figure(surface, paths))],
        "gradients.training_norm_figure": [("", lambda: f.training_norm_figure(logs, 1.0))],
        "gradients.training_loss_figure": [("", lambda: f.training_loss_figure(logs))],
    }


def _lstm():
    from lmcore.figures import lstm as f

    words = "the river ran past the old mill and on to the sea".split()
    chars = list("语言模型可以预测下一个字也可以生成新的句子")
    x = np.linspace(0, 1, len(words))
    gain = 10 ** np.linspace(-6, 0, len(words))
    # as the LSTM page's passage: long enough that its tokens are turned on the axis
    passage = ("<s> she writes every step : wash your hands , cut the onions , <unk> the garlic , <unk> the oil , "
               "<unk> the tomatoes , <unk> salt , sugar and basil , wait thirty minutes .").split()
    long_gain = 10 ** np.linspace(-3, 0, len(passage))
    return {
        "lstm.unit_heatmap": [("words", lambda: f.unit_heatmap(np.random.default_rng(0).random((4, len(words))), words, [0, 1, 2, 3], "f(t)")),
                              ("chars", lambda: f.unit_heatmap(np.random.default_rng(0).random((4, len(chars))), chars, [0, 1, 2, 3], "f(t)", lang="zh"))],
        "lstm.gradient_path_figure": [("", lambda: f.gradient_path_figure(words, gain, gain * 2, gain ** 0.5, gain, gain ** 2)),
                                      ("passage", lambda: f.gradient_path_figure(passage, long_gain, long_gain * 2, long_gain ** 0.5,
                                                                                 long_gain ** 2, rnn_norm=long_gain ** 3)),
                                      ("passage zh", lambda: f.gradient_path_figure(passage, long_gain, long_gain * 2, long_gain ** 0.5,
                                                                                    long_gain ** 2, rnn_norm=long_gain ** 3, lang="zh"))],
        "lstm.edit_travel_figure": [("", lambda: f.edit_travel_figure(words, {"c": x, "h": x / 2}, 3))],
        "lstm.next_token_shift_figure": [("", lambda: f.next_token_shift_figure(words, x / x.sum(), x[::-1] / x.sum()))],
        "lstm.training_curve_figure": [
            ("1500→8", lambda: f.training_curve_figure(list(range(0, 400, 10)), list(np.geomspace(1500, 8, 40)),
                                                       [100, 200, 300], [40.0, 20.0, 12.0], floor=7.5)),
            ("20→60", lambda: f.training_curve_figure([1, 2, 3], [60.0, 40.0, 25.0], [3], [21.0])),
        ],
        "lstm.comparison_figure": [("", lambda: f.comparison_figure(["MLE", "KN", "LSTM"], [float("inf"), 120.0, 95.0],
                                                                    ["ngram", "ngram", "neural"], 80.0))],
    }


def _ngram():
    from lmcore.figures import ngram as f

    rng = np.random.default_rng(0)
    counts = np.concatenate([rng.integers(1, 1200, 300), [35, 38, 40, 45]])
    cont = np.concatenate([np.maximum(1, counts[:300] // rng.integers(1, 10, 300)), [1, 1, 2, 3]])
    words = [f"w{i}" for i in range(300)] + ["harbor", "marco", "okafor", "then"]
    probs = np.array([0.3, 0.2, 0.1, 0.0])
    grid = np.array([[300.0, 280.0], [float("inf"), 150.0]])
    return {
        "ngram.next_word_figure": [("", lambda: f.next_word_figure(["a", "<s>", "c", "d"], {"mle": probs, "modified-kn": probs + 0.01}))],
        "ngram.sparsity_figure": [("", lambda: f.sparsity_figure([0.02, 0.4, 0.8]))],
        "ngram.perplexity_heatmap": [("", lambda: f.perplexity_heatmap([1, 2], ["mle", "modified-kn"], grid, 50.0))],
        "ngram.continuation_figure": [("", lambda: f.continuation_figure(words, counts, cont, list(range(296, 304))))],
        "ngram.chain_rule_bars": [("", lambda: f.chain_rule_bars(_scores(np.log([0.281, 0.0273, 0.376, 0.0291, 0.000136, 0.965]))))],
        "ngram.cumulative_logprob_figure": [("", lambda: f.cumulative_logprob_figure(running_ppl_case()))],
        "ngram.running_perplexity_figure": [("ppl≈31", lambda: f.running_perplexity_figure(running_ppl_case())),
                                            ("flat", lambda: f.running_perplexity_figure(_scores(np.log([0.5, 0.5, 0.5]))))],
        "ngram.uniform_die_figure": [("", lambda: f.uniform_die_figure(31.0))],
    }


def _rnn():
    from lmcore.figures import rnn as f

    tokens = "the cat sat on the mat".split()
    h = np.tanh(np.random.default_rng(0).normal(size=(len(tokens), 5)))
    top = [[("the", 0.5), ("cat", 0.3)] for _ in tokens]
    return {
        "rnn.hidden_state_heatmap": [("", lambda: f.hidden_state_heatmap(h, tokens, 2))],
        "rnn.step_loss_figure": [("", lambda: f.step_loss_figure(np.array([2.0, 3.5, 1.0, 4.0, 2.5, 0.8]), tokens[1:] + ["</s>"], 2))],
        "rnn.bptt_heatmap": [("", lambda: f.bptt_heatmap(np.tril(np.ones((6, 6))), tokens, 2))],
        "rnn.truncation_error_figure": [("", lambda: f.truncation_error_figure(np.linspace(0.5, 0.0, 6), 2))],
        "rnn.forward_animation": [("", lambda: f.forward_animation(h, tokens, top, tokens[1:] + ["</s>"]))],
    }


def _live():
    from lmcore.figures import live as f

    return {
        "live.live_histogram": [("open", lambda: f.live_histogram([0.0, 0.5, 1.0, 1.5], [2, 5, 1])),
                                ("revealed", lambda: f.live_histogram([0.0, 0.5, 1.0, 1.5], [2, 5, 1], (0.4, 0.6), 0.5, "zh"))],
        "live.live_choices": [("open", lambda: f.live_choices(["A · <s>", "B", "C"], [3, 0, 7])),
                              ("revealed", lambda: f.live_choices(["A", "B"], [4, 1], 0, "zh"))],
    }


def _seq2seq():
    from lmcore.figures import seq2seq as f
    from lmcore.seq2seq.evaluation import LengthResult

    rows = {"dot": [LengthResult(m, 1.0 - m / 10, -0.1 * m, 50) for m in range(1, 8)]}
    return {
        "seq2seq.attention_heatmap": [("", lambda: f.attention_heatmap([[0.9, 0.1], [0.2, 0.8]], ["4", "2"], ["2", "</s>"]))],
        "seq2seq.length_curves": [("accuracy", lambda: f.length_curves(rows, "accuracy")),
                                  ("loglik", lambda: f.length_curves(rows, "token_loglik", "zh"))],
    }


def cases() -> dict[str, list[tuple[str, object]]]:
    out: dict[str, list] = {}
    for part in (_corpus, _decoding, _gradients, _live, _lstm, _ngram, _rnn, _seq2seq):
        out.update(part())
    return out


def case_params() -> list:
    """Every case of :func:`cases` as a pytest parameter (name, make), id ``builder[label]``."""
    import pytest

    return [pytest.param(name, make, id=f"{name}[{label}]" if label else name)
            for name, items in cases().items() for label, make in items]
