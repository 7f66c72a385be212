"""Figures of the seq2seq page: the attention heatmap and the bottleneck curves vs source length."""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import plotly.graph_objects as go

from lmcore.figures.labels import plotly_text

from lmcore.figures.style import readable
from lmcore.i18n import t
from lmcore.seq2seq.evaluation import LengthResult

VARIANT_COLOURS = {"none": "#d62728", "dot": "#1f77b4", "additive": "#2ca02c"}


def attention_heatmap(weights: Sequence[Sequence[float]], source: Sequence[str],
                      target: Sequence[str], lang: str = "en") -> go.Figure:
    """α_tj: rows = queries (decoder step t, labelled by the token it predicts), columns = keys
    (source position j). Integer axes with tick labels, so repeated tokens keep their own cell."""
    esc = lambda toks: [plotly_text(tok) for tok in toks]  # noqa: E731
    fig = go.Figure(go.Heatmap(
        z=[list(row) for row in weights], x=list(range(len(source))), y=list(range(len(target))),
        colorscale="Blues", zmin=0, zmax=1, colorbar=dict(title="α"),
        customdata=[[[plotly_text(tgt), plotly_text(src)] for src in source]
                    for tgt in target],
        hovertemplate=t("seq2seq.fig.heat_hover", lang) + "<extra></extra>",
    ))
    fig.update_layout(
        title=t("seq2seq.fig.heat_title", lang),
        # the keys' axis below the map: above it, it ran into the title on a phone, and in Chinese into
        # the query axis's title, which is written above the plot (upright), on any screen
        xaxis=dict(title=t("seq2seq.fig.key_axis", lang), tickmode="array",
                   tickvals=list(range(len(source))), ticktext=esc(source)),
        yaxis=dict(title=t("seq2seq.fig.query_axis", lang), tickmode="array",
                   tickvals=list(range(len(target))), ticktext=esc(target), autorange="reversed"),
        height=max(300, 28 * len(target) + 160) + 60, margin=dict(t=60, b=90),  # the keys' axis and its title below
        # on a phone (ui/plotly_element.js): the colour bar slimmer
        meta=dict(lmNarrow=dict(below=600, data=[dict(colorbar=dict(thickness=12))])),
    )
    return readable(fig)


def length_curves(results: Mapping[str, Sequence[LengthResult]], metric: str = "accuracy",
                  lang: str = "en") -> go.Figure:
    """Exact-match accuracy (``metric="accuracy"``) or mean per-token log P(y_t | y_<t, x)
    (``metric="token_loglik"``) vs source length m, one line per attention variant."""
    fig = go.Figure()
    for variant, rows in results.items():
        fig.add_scatter(x=[r.length for r in rows], y=[getattr(r, metric) for r in rows],
                        mode="lines+markers", name=t(f"seq2seq.variant.{variant}", lang),
                        line=dict(color=VARIANT_COLOURS.get(variant)), meta={"variant": variant})
    fig.update_layout(
        title=t(f"seq2seq.fig.{metric}_title", lang),
        xaxis=dict(title=t("seq2seq.fig.length_axis", lang), dtick=1),
        yaxis=dict(title=t(f"seq2seq.fig.{metric}", lang),
                   range=[-0.02, 1.02] if metric == "accuracy" else None),
        legend=dict(x=0.02, y=0.02, yanchor="bottom"), margin=dict(t=50, b=40),
    )
    return readable(fig)
