"""The textbook case where greedy decoding is not optimal (after d2l, "Beam Search").

Vocabulary {A, B, C, </s>}. Greedy follows A (0.5), B (0.4), C (0.4), </s> (0.6):
P = 0.5 · 0.4 · 0.4 · 0.6 = 0.048. Taking the second-best C (0.3) at step 2 leads to
A C B </s> with P = 0.5 · 0.3 · 0.6 · 0.6 = 0.054, which beam search with k = 2 finds and which is
the true argmax (checked by exhaustive search in the tests).
"""
from __future__ import annotations

from lmcore.decoding.scorers import TableScorer

VOCAB: tuple[str, ...] = ("A", "B", "C", "</s>")
A, B, C, END = range(4)
MAX_LEN = 4

TABLE: dict[tuple[int, ...], dict[int, float]] = {
    (): {A: 0.5, B: 0.25, C: 0.2, END: 0.05},
    (A,): {A: 0.2, B: 0.4, C: 0.3, END: 0.1},
    (A, B): {A: 0.2, B: 0.2, C: 0.4, END: 0.2},
    (A, B, C): {A: 0.1, B: 0.1, C: 0.2, END: 0.6},
    (A, C): {A: 0.1, B: 0.6, C: 0.2, END: 0.1},
    (A, C, B): {A: 0.2, B: 0.1, C: 0.1, END: 0.6},
}
DEFAULT: dict[int, float] = {A: 0.3, B: 0.3, C: 0.3, END: 0.1}

GREEDY_PATH: tuple[int, ...] = (A, B, C, END)
BEST_PATH: tuple[int, ...] = (A, C, B, END)


def textbook_scorer() -> TableScorer:
    """The hand-made conditional distributions P(y_t | y_<t) of the example."""
    return TableScorer(VOCAB, TABLE, DEFAULT, end_id=END)
