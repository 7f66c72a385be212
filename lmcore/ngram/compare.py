"""One context, every method side by side: the next-word table of the n-gram page."""
from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Sequence

import numpy as np
import pandas as pd

from lmcore.i18n import t
from lmcore.ngram.levels import context_row
from lmcore.ngram.model import NgramModel


def context_counts(model: NgramModel, context: Sequence[str]) -> np.ndarray:
    """C(h, w) for every w of ``model.vocab``, h = the last N−1 tokens of ``context`` (raw counts)."""
    h = list(context)[max(0, len(context) - (model.order - 1)):] if model.order > 1 else []
    out = np.zeros(len(model.vocab))
    if not h:
        out[:] = model.tables[0].count[:-1]
        return out
    c = context_row(model.tables, model.token_ids(h))
    if c < 0:
        return out
    table = model.tables[len(h)]
    lo, hi = table.ctx_range(c)
    out[table.words(lo, hi)] = table.count[lo:hi]
    return out


@dataclass(frozen=True)
class NextWordTable:
    """Rows: the most frequent next words, a few unseen ones, then 'all other words', the words never
    seen after h, and Σ."""

    context: list[str]
    context_count: float
    words: list[str]
    counts: np.ndarray
    probs: dict[str, np.ndarray]
    others: dict[str, float]
    sums: dict[str, float]
    unseen_mass: dict[str, float]


def next_word_table(models: dict[str, NgramModel], context: Sequence[str], n_rows: int = 10,
                    n_unseen: int = 3) -> NextWordTable:
    """Compare ``models`` (same counts and order) after ``context``."""
    first = next(iter(models.values()))
    counts = context_counts(first, context)
    dists = {m: lm.distribution(context) for m, lm in models.items()}
    seen = np.nonzero(counts > 0)[0]
    top = seen[np.argsort(-counts[seen], kind="stable")][:n_rows]
    ref = dists.get("modified-kn", next(iter(dists.values())))
    unseen = np.nonzero(counts == 0)[0]
    extra = unseen[np.argsort(-ref[unseen], kind="stable")][:n_unseen]
    shown = np.concatenate([top, extra]).astype(int)
    rest = np.ones(len(counts), dtype=bool)
    rest[shown] = False
    h = list(context)[max(0, len(context) - (first.order - 1)):] if first.order > 1 else []
    return NextWordTable(
        context=h, context_count=float(counts.sum()), words=[first.vocab[i] for i in shown],
        counts=counts[shown], probs={m: p[shown] for m, p in dists.items()},
        others={m: float(p[rest].sum()) for m, p in dists.items()},
        sums={m: float(p.sum()) for m, p in dists.items()},
        unseen_mass={m: float(p[counts == 0].sum()) for m, p in dists.items()},
    )


def frequent_contexts(model: NgramModel, k: int = 30) -> list[list[str]]:
    """k frequent contexts of length N−1 in training (``<s>`` included), those followed by the most
    distinct words N1+(h •) first (then by C(h)): the ones where smoothing has most to do.
    ``[["<s>"]]`` when the training sentences are too short to hold any."""
    if model.order < 2:
        return [[]]
    table = model.tables[model.order - 1]
    starts = table.ctx_start  # contexts with no row (e.g. ending in </s>) have equal neighbours
    cumulative = np.concatenate([[0], np.cumsum(table.count)])
    totals = cumulative[starts[1:]] - cumulative[starts[:-1]]  # C(h •)
    distinct = np.diff(starts)  # N1+(h •)
    best = np.lexsort((-totals, -distinct))[:k]
    names = list(model.vocab) + ["<s>"]
    out = []
    for c in best:
        if totals[c] <= 0:
            break
        words, row = [], int(c)
        for order in range(model.order - 1, 0, -1):
            t = model.tables[order - 1]
            words.append(names[int(t.keys[row] % t.radix)])
            row = int(t.ctx_of(row))
        out.append(words[::-1])
    return out or [["<s>"]]


def table_frame(table: NextWordTable, lang: str = "en") -> pd.DataFrame:
    """The table as shown: word, C(h,w) (the rest of C(h) on 'all other words'), one column per method;
    then the rows 'all other words', 'every word never seen after h' (Σ P(w | h) over C(h,w) = 0: the
    mass a method moves to unseen words; C = 0 by definition) and Σ over the vocabulary."""
    frame = pd.DataFrame({
        t("ngram.table.word", lang): table.words + [t("ngram.table.others", lang), t("ngram.table.unseen", lang),
                                                    t("ngram.table.sum", lang)],
        t("ngram.table.count", lang): list(table.counts) + [table.context_count - float(np.sum(table.counts)), 0.0,
                                                            table.context_count],
    })
    for m, p in table.probs.items():
        frame[t(f"ngram.method.{m}", lang)] = list(p) + [table.others[m], table.unseen_mass[m], table.sums[m]]
    return frame
