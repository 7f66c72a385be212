"""Figures of the n-gram and chain-rule pages (data in, plotly Figure out)."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from lmcore.figures.labels import plotly_text, plotly_texts
from lmcore.figures.placement import Frame, place_labels, token_axis
from lmcore.figures.style import log_axis, readable
from lmcore.i18n import t
from lmcore.lm_protocol import TokenLogProbs

MAX_DIE_FACES = 60
CONT_WIDTH, CONT_HEIGHT = 700, 460
"""Plotting area width (px) the continuation scatter's labels are laid out for, and its height."""
CONT_MARGIN = dict(t=80, b=50, l=60, r=20)
LABEL_SPOTS = ("top center", "bottom center", "middle right", "middle left")
CHAIN_WIDTH = {"bars": 720, "half": 320}
"""Plotting-area widths (px) of the chain-rule charts at 1280×720: the bars full width, the two
running charts side by side."""


def method_label(method: str, lang: str = "en") -> str:
    return t(f"ngram.method.{method}", lang)


def next_word_figure(words: Sequence[str], dists: dict[str, np.ndarray], lang: str = "en") -> go.Figure:
    """Grouped horizontal bars: P(w | h) of the listed words (one row each, top to bottom) under each
    method (``dists[method][i]``). Words on the vertical axis stay upright, Chinese included."""
    fig = go.Figure()
    y = list(range(len(words)))
    for method, p in dists.items():
        fig.add_bar(y=y, x=np.asarray(p), orientation="h", name=method_label(method, lang),
                    hovertemplate="%{customdata}: %{x:.4f}<extra>" + method_label(method, lang) + "</extra>",
                    customdata=plotly_texts(words))
    per_word = max(18, 6 * len(dists))
    fig.update_layout(title=t("ngram.fig.next.title", lang), barmode="group", height=150 + per_word * max(1, len(words)),
                      yaxis=dict(tickvals=y, ticktext=plotly_texts(words), title=t("ngram.fig.next.x", lang),
                                 autorange="reversed"),
                      xaxis=dict(title="P(w | h)"), margin=dict(t=90, b=40),
                      legend=dict(orientation="h", y=1.0, yanchor="bottom", x=0))
    return readable(fig)


def sparsity_figure(shares: Sequence[float], lang: str = "en") -> go.Figure:
    """Share of held-out n-grams never seen in training, for n = 1, 2, …"""
    n = list(range(1, len(shares) + 1))
    fig = go.Figure(go.Bar(x=n, y=list(shares), text=[f"{s:.1%}" for s in shares], textposition="outside"))
    fig.update_layout(title=t("ngram.fig.sparsity.title", lang),
                      xaxis=dict(title="n", tickvals=n), yaxis=dict(title=t("ngram.fig.sparsity.y", lang),
                                                                   tickformat=".0%", range=[0, 1.1]),
                      margin=dict(t=60, b=40))
    return readable(fig)


def perplexity_heatmap(orders: Sequence[int], methods: Sequence[str], grid: np.ndarray,
                       floor: float | None = None, lang: str = "en") -> go.Figure:
    """Held-out perplexity, n × method (log colour scale); the true floor exp(H) annotated."""
    grid = np.asarray(grid, dtype=float)
    finite = np.where(np.isfinite(grid), grid, np.nan)
    text = [["∞" if np.isinf(v) else f"{v:.1f}" for v in row] for row in grid]
    x = list(range(len(methods)))
    fig = go.Figure(go.Heatmap(z=np.log10(finite), x=x, y=list(orders), text=text, texttemplate="%{text}",
                               colorscale="Viridis_r", showscale=False,
                               hovertemplate="n=%{y}<br>%{text}<extra></extra>"))
    title = t("ngram.fig.grid.title", lang)
    if floor is not None:
        title += " — " + t("ngram.fig.grid.floor", lang, floor=floor)
    fig.update_layout(title=title, xaxis=dict(title=t("ngram.fig.method", lang), tickvals=x,
                                              ticktext=[method_label(m, lang) for m in methods]),
                      yaxis=dict(title="n", tickvals=list(orders), autorange="reversed"), margin=dict(t=60, b=40))
    return readable(fig)


def continuation_figure(words: Sequence[str], counts: np.ndarray, continuation: np.ndarray,
                        label: Sequence[int] = (), lang: str = "en") -> go.Figure:
    """Each word at (C(w), N1+(• w)), log axes; words in ``label`` named, in that order of priority,
    where their name has room (the 'Francisco' words: frequent, yet after very few distinct words)."""
    counts, continuation = np.asarray(counts), np.asarray(continuation)
    keep = (counts > 0) & (continuation > 0)
    idx = np.nonzero(keep)[0]
    fig = go.Figure()
    hover = "%{customdata}: C=%{x}, N1+=%{y}<extra></extra>"
    fig.add_scatter(x=counts[idx], y=continuation[idx], mode="markers",
                    marker=dict(size=5, opacity=0.5), name=t("ngram.fig.cont.words", lang),
                    customdata=plotly_texts(words[i] for i in idx), hovertemplate=hover)
    lab = [int(i) for i in label if keep[i]]
    fig.update_layout(title=t("ngram.fig.cont.title", lang), height=CONT_HEIGHT,
                      xaxis=dict(title=t("ngram.fig.cont.x", lang)),
                      yaxis=dict(title=t("ngram.fig.cont.y", lang)), margin=CONT_MARGIN,
                      legend=dict(orientation="h", y=1.0, yanchor="bottom", x=1, xanchor="right"))
    log_axis(fig, "x", values=list(counts[idx]))
    log_axis(fig, "y", values=list(continuation[idx]))
    frame = Frame(tuple(fig.layout.xaxis.range), tuple(fig.layout.yaxis.range), CONT_WIDTH,
                  CONT_HEIGHT - CONT_MARGIN["t"] - CONT_MARGIN["b"])
    points = [frame.px(np.log10(counts[i]), np.log10(continuation[i])) for i in lab]
    where = place_labels(points, [str(words[i]) for i in lab], [LABEL_SPOTS] * len(lab), range(len(lab)),
                         bounds=(frame.width, frame.height))
    fig.add_scatter(x=counts[lab], y=continuation[lab], mode="markers+text",
                    text=[plotly_text(words[i]) if w else "" for i, w in zip(lab, where)],
                    textposition=[w or "top center" for w in where], textfont=dict(size=12),
                    customdata=plotly_texts(words[i] for i in lab), marker=dict(size=8, color="crimson"),
                    name=t("ngram.fig.cont.labelled", lang), hovertemplate=hover)
    return readable(fig)


def path_text(scores: TokenLogProbs, i: int, lang: str = "en") -> str:
    """Which order or backoff path produced P(x_i | history), in words."""
    parts = []
    if scores.oov[i]:
        parts.append(t("chain_rule.path.oov", lang))
    if scores.found_order is None:
        return " · ".join(parts) or t("chain_rule.path.model", lang)
    found, used, avail = (int(scores.found_order[i]), int(scores.context_order[i]), int(scores.available_order[i]))
    if used == 0:
        parts.append(t("chain_rule.path.uniform", lang, avail=avail))
    else:
        if used < avail:
            parts.append(t("chain_rule.path.context_unseen", lang, avail=avail, used=used))
        if found == used:
            parts.append(t("chain_rule.path.found", lang, n=found))
        elif found > 0:
            parts.append(t("chain_rule.path.backoff", lang, used=used, found=found))
        else:
            parts.append(t("chain_rule.path.none", lang))
    return " · ".join(parts)


def _positions(scores: TokenLogProbs) -> tuple[list[int], list[str]]:
    return list(range(len(scores.tokens))), plotly_texts(scores.tokens)


def _token_axis(scores: TokenLogProbs, width: float, lang: str) -> dict:
    """Positions 0..T−1 labelled by the tokens x_t (the axis says so), thinned to fit ``width`` px (:func:`token_axis`)."""
    return dict(title=t("chain_rule.fig.token_axis", lang),
                **token_axis(scores.tokens, width, labels=plotly_texts(scores.tokens), first=0))


def chain_rule_bars(scores: TokenLogProbs, lang: str = "en") -> go.Figure:
    """P(x_t | x_<t) per token; hover tells the path; zero probabilities marked in red."""
    x, ticks = _positions(scores)
    p = scores.probs
    colors = ["crimson" if v == 0 else ("orange" if o else "steelblue") for v, o in zip(p, scores.oov)]
    hover = [f"{tok}<br>P = {v:.3g}<br>{plotly_text(path_text(scores, i, lang))}" for i, (tok, v) in enumerate(zip(ticks, p))]
    fig = go.Figure(go.Bar(x=x, y=p, marker_color=colors, hovertext=hover, hoverinfo="text",
                           text=[f"{v:.3g}" for v in p], textposition="outside"))
    fig.update_layout(title=t("chain_rule.fig.bars.title", lang),
                      xaxis=_token_axis(scores, CHAIN_WIDTH["bars"], lang), yaxis=dict(title="P(x_t | x_<t)"),
                      margin=dict(t=60, b=40))
    log_axis(fig, "y", values=[v for v in p if v > 0] + [1.0], headroom=0.12)  # room for the labels above bars
    return readable(fig)


def cumulative_logprob_figure(scores: TokenLogProbs, lang: str = "en") -> go.Figure:
    """Σ_{s≤t} ln P(x_s | x_<s): the log-probability of the prefix, token by token."""
    x = list(range(len(scores.tokens)))
    with np.errstate(invalid="ignore"):
        cum = np.cumsum(scores.logprobs)
    fig = go.Figure(go.Scatter(x=x, y=np.where(np.isfinite(cum), cum, None), mode="lines+markers"))
    fig.update_layout(title=t("chain_rule.fig.cum.title", lang), xaxis=_token_axis(scores, CHAIN_WIDTH["half"], lang),
                      yaxis=dict(title=t("chain_rule.fig.cum.y", lang)), margin=dict(t=60, b=40))
    return readable(fig)


def running_perplexity_figure(scores: TokenLogProbs, lang: str = "en") -> go.Figure:
    """exp(−(1/t) Σ_{s≤t} ln P(x_s | x_<s)) after each token t."""
    x = list(range(len(scores.tokens)))
    with np.errstate(invalid="ignore", over="ignore"):
        run = np.exp(-np.cumsum(scores.logprobs) / np.arange(1, len(x) + 1))
    fig = go.Figure(go.Scatter(x=x, y=np.where(np.isfinite(run), run, None), mode="lines+markers"))
    fig.update_layout(title=t("chain_rule.fig.run.title", lang), xaxis=_token_axis(scores, CHAIN_WIDTH["half"], lang),
                      yaxis=dict(title="PPL"), margin=dict(t=60, b=40))
    log_axis(fig, "y")
    return readable(fig)


def uniform_die_figure(ppl: float, lang: str = "en") -> go.Figure:
    """A k-sided fair die, k ≈ PPL: k equal bars of height 1/k (first MAX_DIE_FACES faces drawn)."""
    k = max(1, int(round(ppl))) if np.isfinite(ppl) else MAX_DIE_FACES
    faces = min(k, MAX_DIE_FACES)
    fig = go.Figure(go.Bar(x=list(range(1, faces + 1)), y=[1.0 / k] * faces, marker_color="seagreen"))
    note = "" if k <= MAX_DIE_FACES else " " + t("chain_rule.fig.die.more", lang, k=k, shown=faces)
    fig.update_layout(title=t("chain_rule.fig.die.title", lang, k=k) + note, bargap=0.1,
                      xaxis=dict(title=t("chain_rule.fig.die.x", lang)), yaxis=dict(title="1/k"),
                      margin=dict(t=60, b=40), showlegend=False)
    return readable(fig)
