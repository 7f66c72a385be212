"""One corpus feeds every model: perplexities of n-gram and neural models on the same split.

Every row is PPL = exp(−(1/N) Σ ln P(x(t) | x(<t))) over the unk-mapped sentences of one split,
N counting every token and one ``</s>`` per sentence (per corpus token also for char models). For
the synthetic corpus, exp(true_entropy) is the floor no model can beat on average.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from lmcore.ngram import NgramCounts, NgramModel, count_ngrams
from lmcore.training.neural_lm import NeuralLM

# (row name, order, lmcore.ngram method); the page shows t(f"lstm.cmp.row.{name}")
NGRAM_ROWS: tuple[tuple[str, int, str], ...] = (
    ("unigram", 1, "add-delta"),
    ("mle3", 3, "mle"),
    ("add3", 3, "add-delta"),
    ("kn3", 3, "kn-interp"),
    ("mkn3", 3, "modified-kn"),
)


@dataclass(frozen=True)
class Row:
    """One model's perplexity on ``split`` (``family``: "ngram" or "neural")."""

    model: str
    family: str
    split: str
    ppl: float


def ngram_perplexity(counts: NgramCounts, corpus, order: int, method: str, split: str) -> float:
    """PPL of an n-gram model on the unk-mapped training counts (inf if a token has P = 0)."""
    return float(NgramModel(counts, order, method).perplexity(corpus.mapped(split)).ppl)


def neural_perplexity(lm: NeuralLM, corpus, split: str) -> float:
    """PPL per corpus token of a trained recurrent model (each sentence from the zero state):
    ``lm.perplexity``, the protocol's number, as on every other page."""
    return lm.perplexity(corpus.mapped(split)).ppl


def comparison_rows(corpus, neural: Mapping[str, NeuralLM], split: str = "test",
                    ngram_rows: tuple[tuple[str, int, str], ...] = NGRAM_ROWS) -> list[Row]:
    """n-gram rows then one row per neural model, all on the same ``split``."""
    return comparison_by_split(corpus, neural, (split,), ngram_rows)[split]


def comparison_by_split(corpus, neural: Mapping[str, NeuralLM], splits: tuple[str, ...] = ("test", "valid"),
                        ngram_rows: tuple[tuple[str, int, str], ...] = NGRAM_ROWS) -> dict[str, list[Row]]:
    """:func:`comparison_rows` for each of ``splits``, the training n-grams counted once for all."""
    counts = count_ngrams(corpus.mapped("train"), max(order for _, order, _ in ngram_rows))
    out = {}
    for split in splits:
        rows = [Row(name, "ngram", split, ngram_perplexity(counts, corpus, order, method, split))
                for name, order, method in ngram_rows]
        out[split] = rows + [Row(name, "neural", split, neural_perplexity(lm, corpus, split)) for name, lm in neural.items()]
    return out


def perplexity_floor(corpus) -> float | None:
    """exp(true_entropy) for a corpus sampled from a known source, else None."""
    entropy = getattr(corpus, "true_entropy", None)
    return None if entropy is None else math.exp(entropy)
