"""Figures of the Corpus page: Zipf's law, Heaps' law, sentence lengths."""
from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from lmcore.corpus.stats import PowerLaw
from lmcore.figures.style import log_axis, readable
from lmcore.i18n import t


def zipf_figure(ranks: np.ndarray, freqs: np.ndarray, law: PowerLaw, lang: str = "en") -> go.Figure:
    """Log rank vs log frequency, with the fitted line f = e^a · r^s."""
    fig = go.Figure()
    fig.add_scatter(x=ranks, y=freqs, mode="markers", name=t("corpus.zipf.data", lang), marker=dict(size=4))
    fig.add_scatter(x=ranks, y=law(ranks), mode="lines", name=t("corpus.zipf.fit", lang, slope=law.slope), line=dict(dash="dash"))
    fig.update_layout(
        title=t("corpus.zipf.title", lang, slope=law.slope),
        xaxis=dict(title=t("corpus.zipf.rank", lang)),
        yaxis=dict(title=t("corpus.zipf.freq", lang)),
        legend=dict(x=0.98, y=0.98, xanchor="right"),
        margin=dict(t=60, b=40),
    )
    log_axis(fig, "x")
    log_axis(fig, "y")
    return readable(fig)


def heaps_figure(n_tokens: np.ndarray, n_types: np.ndarray, law: PowerLaw, lang: str = "en") -> go.Figure:
    """Distinct types after N tokens, with the fitted V = K·N^β."""
    fig = go.Figure()
    fig.add_scatter(x=n_tokens, y=n_types, mode="lines+markers", name=t("corpus.heaps.types", lang), marker=dict(size=4))
    fig.add_scatter(x=n_tokens, y=law(n_tokens), mode="lines", name=t("corpus.heaps.fit", lang), line=dict(dash="dash"))
    fig.update_layout(
        title=t("corpus.heaps.title", lang, k=float(np.exp(law.intercept)), beta=law.slope),
        xaxis=dict(title=t("corpus.heaps.tokens", lang)),
        yaxis=dict(title=t("corpus.heaps.types", lang)),
        legend=dict(x=0.02, y=0.98),
        margin=dict(t=60, b=40),
    )
    return readable(fig)


def length_histogram(lengths: np.ndarray, lang: str = "en") -> go.Figure:
    """Histogram of tokens per sentence."""
    fig = go.Figure(go.Histogram(x=lengths, nbinsx=min(60, max(5, int(lengths.max(initial=1))))))
    fig.update_layout(
        title=t("corpus.lengths.title", lang),
        xaxis=dict(title=t("corpus.lengths.x", lang)),
        yaxis=dict(title=t("corpus.lengths.y", lang)),
        bargap=0.05,
        margin=dict(t=60, b=40),
    )
    return readable(fig)
