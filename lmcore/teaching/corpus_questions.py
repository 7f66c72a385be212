"""Questions on the corpus itself (the Corpus page's statistics, all splits in file order).

- ``corpus.heaps``: the first N₁ tokens hold V(N₁) distinct types; V(N₂) for a later N₂ is closest
  to…? (Heaps' law V(N) = K·N^β with β < 1: far fewer than the linear V(N₁)·N₂/N₁);
- ``corpus.zipf``: the most frequent token occurs C₁ times; the count of the rank-r token is
  closest to…? (Zipf's law f(r) ∝ r^s, s ≈ −1: about C₁/r);
- ``corpus.oov``: the share of the test split's tokens that the training vocabulary does not hold
  is closest to…? (OOV rate = #{test tokens ∉ V} / #test tokens).
Numbers come from :mod:`lmcore.corpus.stats` (the functions the page draws with); the choices are
a factor 1.6 apart (:func:`lmcore.teaching.estimates.scaled_options`).
"""
from __future__ import annotations

import numpy as np

from lmcore.corpus import Corpus
from lmcore.corpus.stats import heaps, oov_rate, token_counts, top_tokens
from lmcore.teaching.estimates import percent, scaled_options
from lmcore.teaching.question import CHOICE, Question, Table, fmt, literal, text

MIN_TOKENS = 200  # below this, Heaps' and Zipf's laws have nothing to show
ZIPF_RANKS = (5, 10, 20, 50)
HEAPS_RATIOS = (5, 8, 10)


def heaps_question(corpus: Corpus, rng: np.random.Generator) -> Question | None:
    """V(N₂) given V(N₁) with N₂ = 5–10 × N₁, at points of the page's Heaps curve."""
    n_tokens, n_types, law = heaps(corpus)
    if len(n_tokens) < 20 or n_tokens[-1] < MIN_TOKENS:
        return None
    i2 = int(rng.integers(len(n_tokens) // 2, len(n_tokens) * 3 // 4))
    n2 = int(n_tokens[i2])
    i1 = int(np.argmin(np.abs(n_tokens - n2 / int(rng.choice(HEAPS_RATIOS)))))
    n1, v1, v2 = int(n_tokens[i1]), int(n_types[i1]), int(n_types[i2])
    if n1 >= n2 or v1 < 1:
        return None
    options, answer = scaled_options(v2, rng, low=v1, high=n2)
    return Question(
        qid="corpus.heaps", topic="corpus", kind=CHOICE, answer=answer,
        prompt=text("teaching.q.heaps", n1=n1, v1=v1, n2=n2),
        choices=tuple(literal(str(int(x))) for x in options),
        table=Table((text("teaching.col.n_tokens"), text("teaching.col.n_types")), ((n1, v1), (n2, "?"))),
        reveal=text("teaching.r.heaps", n2=n2, v2=v2, linear=round(v1 * n2 / n1), beta=fmt(law.slope),
                    k=fmt(float(np.exp(law.intercept)))),
        explain="heaps",
        explain_data={"n_tokens": n_tokens.tolist(), "n_types": n_types.tolist(), "marks": [n1, n2]},
    )


def zipf_question(corpus: Corpus, rng: np.random.Generator) -> Question | None:
    """The count of the rank-r token given the most frequent token's count."""
    counts = token_counts(corpus)
    top = top_tokens(counts, max(ZIPF_RANKS))
    ranks = [r for r in ZIPF_RANKS if r <= len(top)]
    if sum(counts.values()) < MIN_TOKENS or not ranks:
        return None
    rank = int(rng.choice(ranks))
    (w1, c1, s1), (wr, cr, _) = top[0], top[rank - 1]
    options, answer = scaled_options(cr, rng, high=c1)
    return Question(
        qid="corpus.zipf", topic="corpus", kind=CHOICE, answer=answer,
        prompt=text("teaching.q.zipf", w1=w1, c1=c1, r=rank),
        choices=tuple(literal(str(int(x))) for x in options),
        table=Table((text("teaching.col.rank"), text("teaching.col.token"), text("teaching.col.count")),
                    ((1, w1, c1), (rank, "?", "?"))),
        reveal=text("teaching.r.zipf", r=rank, w=wr, c=cr, zipf=round(c1 / rank), share=percent(s1)),
        explain="zipf",
        explain_data={"counts": sorted(counts.values(), reverse=True), "marks": [1, rank]},
    )


def oov_question(corpus: Corpus, rng: np.random.Generator) -> Question | None:
    """The test split's OOV rate, given the training size and vocabulary size."""
    rate = oov_rate(corpus, "test")
    test_tokens = sum(len(s) for s in corpus.split("test"))
    if rate <= 0 or test_tokens == 0:
        return None
    options, answer = scaled_options(rate, rng, high=1.0, whole=False)
    train_tokens = sum(len(s) for s in corpus.split("train"))
    return Question(
        qid="corpus.oov", topic="corpus", kind=CHOICE, answer=answer,
        prompt=text("teaching.q.oov", train=train_tokens, v=len(corpus.vocab), test=test_tokens),
        choices=tuple(literal(percent(x)) for x in options),
        reveal=text("teaching.r.oov", n=round(rate * test_tokens), test=test_tokens, rate=percent(rate)),
        explain="bars",
        explain_data={"x": ["teaching.bar.oov_valid", "teaching.bar.oov_test"], "x_keys": True, "highlight": 1,
                      "y": [oov_rate(corpus, "valid"), rate], "title": "teaching.fig.oov", "y_title": "teaching.axis.oov"},
    )


def corpus_questions(corpus: Corpus, seed: int = 0) -> list[Question]:
    """The corpus questions for this corpus and seed (the same seed gives the same ones)."""
    rng = np.random.default_rng([seed, 23])
    made = [heaps_question(corpus, rng), zipf_question(corpus, rng), oov_question(corpus, rng)]
    return [q for q in made if q is not None]
