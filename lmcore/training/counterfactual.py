"""Counterfactual edit: replace one symbol of a passage and see what changes downstream.

With the edited passage x' (x'(j) ≠ x(j) at one position j, equal elsewhere), every signal s ∈ {f, i,
o, c̃, c, h} gives Δs(t) = s'(t) − s(t): zero for t < j (causality), and the next-symbol
distribution after the passage moves from softmax(W_y h(T) + b_y) to softmax(W_y h'(T) + b_y).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from lmcore.training.lstm_trace import PassageTrace, trace_passage
from lmcore.training.neural_lm import NeuralLM


@dataclass(frozen=True)
class Counterfactual:
    """``delta[name]`` = edited − original, (units, T); ``before``/``after`` are the two traces."""

    position: int
    before: PassageTrace
    after: PassageTrace
    delta: dict[str, np.ndarray]

    @property
    def kl(self) -> float:
        """KL(after ‖ before) of the next-symbol distributions, in nats."""
        p, q = self.after.next_probs, self.before.next_probs
        mask = p > 0
        return max(0.0, float(np.sum(p[mask] * (np.log(p[mask]) - np.log(q[mask])))))  # ≥ 0 (no −0.0 from rounding)

    def change_per_step(self, name: str = "c") -> np.ndarray:
        """‖Δs(t)‖₂ over units, per step t."""
        return np.linalg.norm(self.delta[name], axis=0)


def edit(symbols: Sequence[str], position: int, replacement: str) -> list[str]:
    """``symbols`` with ``symbols[position]`` replaced (position counts passage symbols, from 0)."""
    if not 0 <= position < len(symbols):
        raise IndexError("position outside the passage")
    return [*symbols[:position], replacement, *symbols[position + 1:]]


def counterfactual(lm: NeuralLM, symbols: Sequence[str], position: int, replacement: str,
                   forget_bias_shift: float = 0.0) -> Counterfactual:
    """Trace the passage and its edit; step index t of the traces is position + 1 (step 0 reads <s>)."""
    before = trace_passage(lm, symbols, forget_bias_shift)
    after = trace_passage(lm, edit(symbols, position, replacement), forget_bias_shift)
    delta = {name: after.signals[name] - before.signals[name] for name in before.signals}
    return Counterfactual(position + 1, before, after, delta)
