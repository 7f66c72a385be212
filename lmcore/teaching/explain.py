"""The figure that explains a question's answer, shown only after the reveal.

``explain_figure(question, lang)`` rebuilds it from ``question.explain_data`` with the app's own
figure builders (n-gram bars, chain-rule bars, gradient curves, beam-search tree) or a small one
made here (continuation counts, the (σ1γ)^d bound, clipping as a picture).
"""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from lmcore.corpus.stats import fit_power_law
from lmcore.decoding import beam_search, greedy_decode
from lmcore.figures.corpus import heaps_figure, zipf_figure
from lmcore.figures.decoding import beam_tree_figure
from lmcore.figures.gradients import gradient_curves_figure
from lmcore.figures.labels import plotly_texts
from lmcore.figures.ngram import chain_rule_bars, next_word_figure
from lmcore.figures.seq2seq import length_curves
from lmcore.i18n import t
from lmcore.lm_protocol import TokenLogProbs
from lmcore.recurrent.gradient_flow import activation_gamma, curves_over_seeds, theory_line
from lmcore.recurrent.weights import CellSpec
from lmcore.seq2seq.evaluation import LengthResult
from lmcore.teaching import decoding_questions as dq
from lmcore.teaching.question import Question


def explain_figure(question: Question, lang: str = "en") -> go.Figure:
    """The figure named by ``question.explain``, built from its data."""
    builders = {"next_word": _next_word, "continuation": _continuation, "chain_rule": _chain_rule,
                "gradient_curve": _gradient_curve, "bound": _bound, "clip": _clip, "beam_tree": _beam_tree,
                "heaps": _heaps, "zipf": _zipf, "bars": _bars, "length_curves": _length_curves}
    return builders[question.explain](question.explain_data, lang)


def _next_word(data: dict, lang: str) -> go.Figure:
    fig = next_word_figure(data["words"], {m: np.asarray(p) for m, p in data["probs"].items()}, lang=lang)
    fig.update_layout(title=t("teaching.fig.next_word", lang, h=data["context"]))
    return fig


def _continuation(data: dict, lang: str) -> go.Figure:
    words = plotly_texts(data["words"])
    fig = go.Figure([go.Bar(x=words, y=data["count"], name="C(w)", text=data["count"], textposition="outside"),
                     go.Bar(x=words, y=data["continuation"], name="N1+(• w)", text=data["continuation"],
                            textposition="outside")])
    fig.update_layout(title=t("teaching.fig.continuation", lang), barmode="group", margin=dict(t=60, b=40))
    return fig


def _chain_rule(data: dict, lang: str) -> go.Figure:
    logprobs = np.asarray(data["logprobs"], dtype=float)
    return chain_rule_bars(TokenLogProbs(list(data["tokens"]), logprobs, np.zeros(len(logprobs), dtype=bool)), lang=lang)


def _gradient_curve(data: dict, lang: str) -> go.Figure:
    bands = {cell: curves_over_seeds(CellSpec(cell, data["hidden"], 8, "orthogonal", data["sigma1"], data["activation"],
                                              data["forget_bias"]), data["T"], data["input_scale"], [data["seed"]])
             for cell in data["cells"]}
    fig = gradient_curves_figure(bands, data["sigma1"], activation_gamma(data["activation"]), lang=lang)
    if data.get("threshold"):
        fig.add_hline(y=data["threshold"], line=dict(color="black", dash="dot"))
    fig.add_vline(x=data["distance"], line=dict(color="grey", dash="dot"))
    return fig


def _bound(data: dict, lang: str) -> go.Figure:
    d = np.arange(data["T"] + 1)
    sg = data["sigma1"] * data["gamma"]
    fig = go.Figure(go.Scatter(x=d, y=theory_line(data["sigma1"], data["gamma"], d), mode="lines",
                               name=t("gradients.fig.theory", lang, sg=sg)))
    fig.add_hline(y=1.0, line=dict(color="grey", dash="dot"))
    fig.update_layout(title=t("teaching.fig.bound", lang, sg=f"{sg:.3g}"), showlegend=False,
                      xaxis=dict(title=t("gradients.fig.distance", lang)),
                      yaxis=dict(type="log", title="(σ1γ)^(t−k)", exponentformat="power"), margin=dict(t=60, b=40))
    return fig


def _clip(data: dict, lang: str) -> go.Figure:
    (a, b), (c, e), tau = data["g"], data["clipped"], data["threshold"]
    theta = np.linspace(0, 2 * np.pi, 200)
    fig = go.Figure(go.Scatter(x=tau * np.cos(theta), y=tau * np.sin(theta), mode="lines",
                               line=dict(color="grey", dash="dot"), name=t("teaching.fig.clip.ball", lang)))
    for (x, y), colour, key in (((a, b), "#d62728", "teaching.fig.clip.g"), ((c, e), "#2ca02c", "teaching.fig.clip.ghat")):
        fig.add_scatter(x=[0, x], y=[0, y], mode="lines+markers", line=dict(color=colour, width=4),
                        name=t(key, lang))
    span = max(abs(a), abs(b), tau) * 1.15
    fig.update_layout(title=t("teaching.fig.clip", lang), xaxis=dict(range=[-span, span], zeroline=True),
                      yaxis=dict(range=[-span, span], scaleanchor="x"), margin=dict(t=60, b=40))
    return fig


def _beam_tree(data: dict, lang: str) -> go.Figure:
    score = dq.scorer(dq.table_from_explain(data))
    tree = beam_search(score, data["k"], dq.MAX_LEN, dq.END)
    greedy = greedy_decode(score, dq.MAX_LEN, dq.END)
    return beam_tree_figure(tree, dq.VOCAB, greedy.tokens, lang=lang,
                            title=t("teaching.fig.beam", lang, k=data["k"]))


def _marks(fig: go.Figure, xs: list[float]) -> go.Figure:
    for x in xs:
        fig.add_vline(x=x, line=dict(color="grey", dash="dot"))
    return fig


def _heaps(data: dict, lang: str) -> go.Figure:
    n_tokens, n_types = np.asarray(data["n_tokens"], dtype=float), np.asarray(data["n_types"], dtype=float)
    return _marks(heaps_figure(n_tokens, n_types, fit_power_law(n_tokens, n_types), lang=lang), data["marks"])


def _zipf(data: dict, lang: str) -> go.Figure:
    freqs = np.asarray(data["counts"], dtype=float)
    ranks = np.arange(1, len(freqs) + 1, dtype=float)
    fig = zipf_figure(ranks, freqs, fit_power_law(ranks, freqs), lang=lang)
    for r in data["marks"]:  # the x axis is logarithmic: a marker, not a vline at log10
        fig.add_scatter(x=[r], y=[freqs[r - 1]], mode="markers", marker=dict(size=12, symbol="circle-open", color="#d62728"),
                        showlegend=False)
    return fig


def _bars(data: dict, lang: str) -> go.Figure:
    """Bars ``y`` over ``x`` (texts, or catalogue keys with ``x_keys``), bar ``highlight`` in red;
    title and y axis are catalogue keys."""
    colours = ["#d62728" if i == data.get("highlight") else "#1f77b4" for i in range(len(data["y"]))]
    labels = [t(x, lang) for x in data["x"]] if data.get("x_keys") else plotly_texts([str(x) for x in data["x"]])
    fig = go.Figure(go.Bar(x=labels, y=data["y"], marker_color=colours,
                           text=[f"{v:.3g}" for v in data["y"]], textposition="outside"))
    fig.update_layout(title=t(data["title"], lang, **data.get("fields", {})), showlegend=False,
                      yaxis=dict(title=t(data["y_title"], lang), type="log" if data.get("log_y") else "linear"),
                      margin=dict(t=60, b=40))
    if data.get("hline") is not None:
        fig.add_hline(y=data["hline"], line=dict(color="black", dash="dot"))
    return fig


def _length_curves(data: dict, lang: str) -> go.Figure:
    """The page's accuracy-vs-length curves, the question's length (and line) dotted."""
    fig = length_curves({v: [LengthResult(int(m), float(a), 0.0, 0) for m, a in rows] for v, rows in data["curves"].items()},
                        "accuracy", lang)
    fig.add_vline(x=data["length"], line=dict(color="grey", dash="dot"))
    if data.get("line") is not None:
        fig.add_hline(y=data["line"], line=dict(color="black", dash="dot"))
    return fig
