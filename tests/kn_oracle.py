"""Plain-dict pieces of modified Kneser-Ney shared by the n-gram oracles (tests/test_ngram_modified_kn.py,
tests/test_ngram_lmplz.py), written from the conventions note with Counters and sets only (no lmcore)."""
from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence


def raw_counts(sentences: Iterable[Sequence[str]], order: int) -> list[Counter]:
    """``grams[n][g]`` = C(g) for every n-gram g of ``<s> s </s>``, n = 1..order (``grams[0]`` is empty)."""
    grams = [Counter() for _ in range(order + 1)]
    for s in sentences:
        padded = ["<s>", *s, "</s>"]
        for n in range(1, order + 1):
            for i in range(len(padded) - n + 1):
                grams[n][tuple(padded[i:i + n])] += 1
    return grams


def adjusted_counts(grams: list[Counter], order: int) -> list[Counter | None]:
    """The counts modified KN discounts: at the top order and for an n-gram that starts with ``<s>``
    the raw count, else N1+(• g), its number of distinct left neighbours; ``<s>`` alone gets 0."""
    adjusted: list[Counter | None] = [None] + [Counter() for _ in range(order)]
    adjusted[order] = Counter(grams[order])
    for n in range(1, order):
        left = defaultdict(set)
        for g in grams[n + 1]:
            left[g[1:]].add(g[0])
        for g, c in grams[n].items():
            adjusted[n][g] = c if g[0] == "<s>" else len(left[g])
    adjusted[1][("<s>",)] = 0
    return adjusted


def count_of_counts(counts: Iterable[int]) -> list[int]:
    """[n1, n2, n3, n4]: how many of ``counts`` equal 1, 2, 3 and 4."""
    counts = list(counts)
    return [sum(1 for v in counts if v == j) for j in (1, 2, 3, 4)]


def kn_discounts(nk: Sequence[int]) -> list[float]:
    """[0, D1, D2, D3+] with Y = n1 / (n1 + 2 n2) and Dj = j − (j + 1) Y n_{j+1} / n_j (Chen & Goodman)."""
    y = nk[0] / (nk[0] + 2 * nk[1])
    return [0.0] + [j - (j + 1) * y * nk[j] / nk[j - 1] for j in (1, 2, 3)]
