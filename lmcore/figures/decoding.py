"""Figures of the decoding page: the beam-search tree and the beam-width sweep.

Tree layout (own tidy layout): x = step t; leaves are stacked top to bottom in depth-first order
(children by decreasing score, so the best branch is on top) and a parent sits at the mean height
of its children.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import plotly.graph_objects as go

from lmcore.figures.labels import plotly_text
from lmcore.figures.placement import Frame, place_labels

from lmcore.decoding.sweep import SweepPoint
from lmcore.decoding.tree import FINISHED, KEPT, PRUNED, Hypothesis, SearchTree
from lmcore.figures.style import readable
from lmcore.i18n import t

GREEDY_COLOUR, BEST_COLOUR, KEPT_COLOUR, PRUNED_COLOUR = "#d62728", "#2ca02c", "#1f77b4", "#b0b0b0"
PLOT_WIDTH = 760
"""Width in pixels of the tree's plotting area on a 1280×720 screen (the page's full width)."""
TREE_MARGIN = dict(t=90, b=40, l=20, r=20)


def tree_layout(tree: SearchTree) -> list[tuple[float, float]]:
    """(x, y) of every node: x = step, y = tidy height (0 = top leaf, leaves one unit apart)."""
    kids = tree.children()
    for k in kids:
        k.sort(key=lambda c: -tree.score[c])
    y = [0.0] * len(tree)
    next_leaf = 0
    stack: list[tuple[int, bool]] = [(0, False)]
    while stack:  # iterative post-order walk
        node, done = stack.pop()
        if not kids[node]:
            y[node] = -next_leaf
            next_leaf += 1
        elif done:
            y[node] = sum(y[c] for c in kids[node]) / len(kids[node])
        else:
            stack.append((node, True))
            stack.extend((c, False) for c in reversed(kids[node]))
    return [(float(tree.step[i]), y[i]) for i in range(len(tree))]


def path_nodes(tree: SearchTree, tokens: Sequence[int]) -> list[int]:
    """Node ids following ``tokens`` from the root, as far as the tree goes."""
    kids = tree.children()
    ids = [0]
    for tok in tokens:
        nxt = [c for c in kids[ids[-1]] if tree.token[c] == tok]
        if not nxt:
            break
        ids.append(nxt[0])
    return ids


def _edges(tree: SearchTree, pos: list[tuple[float, float]], nodes: Sequence[int]):
    xs: list[float | None] = []
    ys: list[float | None] = []
    for i in nodes:
        p = tree.parent[i]
        if p is None:
            continue
        xs += [pos[p][0], pos[i][0], None]
        ys += [pos[p][1], pos[i][1], None]
    return xs, ys


def _path_trace(tree, pos, ids, colour, name, role, width) -> go.Scatter:
    return go.Scatter(x=[pos[i][0] for i in ids], y=[pos[i][1] for i in ids], mode="lines",
                      line=dict(color=colour, width=width), opacity=0.45, name=name,
                      hoverinfo="skip", meta={"role": role})


def _label_positions(tree: SearchTree, pos: list[tuple[float, float]], raw: Sequence[str], frame: Frame,
                     sizes: dict[str, int], greedy: Sequence[int] | None) -> list[str | None]:
    """Where each node's token is written (None: no room, hover only). Priority: the best
    hypothesis's path, the greedy path, kept and finished nodes, then pruned ones, best score first;
    kept nodes are labelled above (or below) the dot, pruned ones to its right."""
    on_path = set(tree.path(tree.best.node)) if tree.nbest else set()
    if greedy is not None:
        on_path |= set(path_nodes(tree, greedy))
    order = sorted(range(len(tree)), key=lambda i: (i not in on_path, tree.state[i] == PRUNED, -tree.score[i], i))
    candidates = [("middle right",) if tree.state[i] == PRUNED else ("top center", "bottom center")
                  for i in range(len(tree))]
    return place_labels([frame.px(*p) for p in pos], list(raw), candidates, order,
                        [sizes[s] for s in tree.state], bounds=(frame.width, frame.height))


def beam_tree_figure(tree: SearchTree, vocab: Sequence[str], greedy: Sequence[int] | None = None,
                     lang: str = "en", title: str | None = None) -> go.Figure:
    """The search tree: kept edges solid, pruned edges grey dotted, finished hypotheses as stars,
    the greedy path (red) and the best hypothesis (green) highlighted; hover shows the step, the
    token's log P(y_t | y_<t) and the cumulative log-probability s(y_≤t). Token labels are
    HTML-escaped (Plotly reads ``</s>`` as markup)."""
    pos = tree_layout(tree)
    ids = range(1, len(tree))
    kept = [i for i in ids if tree.state[i] != PRUNED]
    pruned = [i for i in ids if tree.state[i] == PRUNED]
    fig = go.Figure()
    if greedy is not None:
        fig.add_trace(_path_trace(tree, pos, path_nodes(tree, greedy), GREEDY_COLOUR,
                                  t("decoding.fig.greedy_path", lang), "greedy_path", 12))
    if tree.nbest:
        fig.add_trace(_path_trace(tree, pos, tree.path(tree.best.node), BEST_COLOUR,
                                  t("decoding.fig.best_path", lang), "best_path", 5))
    for nodes, role, style in ((kept, "kept_edges", dict(color=KEPT_COLOUR, width=1.6)),
                               (pruned, "pruned_edges", dict(color=PRUNED_COLOUR, width=1, dash="dot"))):
        xs, ys = _edges(tree, pos, nodes)
        fig.add_scatter(x=xs, y=ys, mode="lines", line=style, hoverinfo="skip",
                        name=t(f"decoding.fig.{role}", lang), meta={"role": role})
    raw = ["∅" if tok is None else str(vocab[tok]) for tok in tree.token]
    sizes = {KEPT: 11, PRUNED: 7, FINISHED: 16}
    markers = {KEPT: dict(symbol="circle", size=sizes[KEPT], color=KEPT_COLOUR),
               PRUNED: dict(symbol="circle", size=sizes[PRUNED], color=PRUNED_COLOUR),
               FINISHED: dict(symbol="star", size=sizes[FINISHED], color="#ff7f0e")}
    n_leaves = 1 - min((p[1] for p in pos), default=0)
    height = max(340, min(1400, 26 * n_leaves + 150))
    frame = Frame((-0.25, max(p[0] for p in pos) + 0.9), (min(p[1] for p in pos) - 0.7, 1.2),
                  PLOT_WIDTH, height - TREE_MARGIN["t"] - TREE_MARGIN["b"] - 20)
    where = _label_positions(tree, pos, raw, frame, sizes, greedy)
    for state in (PRUNED, KEPT, FINISHED):
        nodes = [i for i in range(len(tree)) if tree.state[i] == state]
        if not nodes:
            continue
        hover = [t("decoding.fig.hover", lang, token=plotly_text(raw[i]), step=tree.step[i],
                   lp=tree.token_logprob[i], score=tree.score[i], prob=math.exp(tree.score[i]),
                   state=t(f"decoding.state.{tree.state[i]}", lang)) for i in nodes]
        fig.add_scatter(x=[pos[i][0] for i in nodes], y=[pos[i][1] for i in nodes],
                        mode="markers+text", text=[plotly_text(raw[i]) if where[i] else "" for i in nodes],
                        textposition=[where[i] or "top center" for i in nodes], textfont=dict(size=12),
                        marker=markers[state], hovertext=hover,
                        hoverinfo="text", name=t(f"decoding.state.{state}", lang),
                        showlegend=state == FINISHED,  # kept/pruned are named once, by their edges
                        meta={"role": f"{state}_nodes", "nodes": nodes})
    hidden = sum(1 for w in where if w is None)
    heading = title or t("decoding.fig.tree_title", lang)
    if hidden:
        heading += " — " + t("decoding.fig.labels_hidden", lang, n=hidden)
    fig.update_layout(
        title=dict(text=heading, y=0.99, yanchor="top"),
        xaxis=dict(title=t("decoding.fig.step", lang), dtick=1, zeroline=False, range=list(frame.x_range)),
        yaxis=dict(visible=False, range=list(frame.y_range)), height=height,
        legend=dict(orientation="h", y=1.0, yanchor="bottom", x=0), margin=TREE_MARGIN,
    )
    return readable(fig)


def beam_sweep_figure(points: Sequence[SweepPoint], optimum: Hypothesis | None,
                      vocab: Sequence[str] | None = None, lang: str = "en",
                      normalised: bool = False) -> go.Figure:
    """Best score found vs beam width k, with the exhaustive optimum as a horizontal line: the gap
    is search error; the optimum's own quality is model error."""
    value = (lambda h: h.normalised) if normalised else (lambda h: h.logprob)
    fig = go.Figure()
    fig.add_scatter(x=[p.beam_width for p in points], y=[value(p.best) for p in points],
                    mode="lines+markers", name=t("decoding.fig.found", lang),
                    hovertext=[plotly_text(" ".join(vocab[i] if vocab else str(i) for i in p.best.tokens))
                               for p in points],
                    meta={"role": "found"})
    if optimum is not None and points:
        ks = [points[0].beam_width, points[-1].beam_width]
        fig.add_scatter(x=ks, y=[value(optimum)] * 2, mode="lines",
                        line=dict(dash="dash", color=BEST_COLOUR),
                        name=t("decoding.fig.optimum", lang), meta={"role": "optimum"})
    fig.update_layout(
        title=t("decoding.fig.sweep_title", lang),
        xaxis=dict(title=t("decoding.fig.beam_width", lang), dtick=1),
        yaxis=dict(title=t("decoding.fig.score_norm" if normalised else "decoding.fig.score", lang)),
        legend=dict(x=0.98, y=0.02, xanchor="right", yanchor="bottom"), margin=dict(t=50, b=40),
    )
    return readable(fig)
