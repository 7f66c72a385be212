"""Counterfactual edit: replace one symbol of a passage and see what changes downstream.

With the edited passage x' (x'(j) ≠ x(j) at one position j, equal elsewhere), every signal s ∈ {f, i,
o, c̃, c, h} gives Δs(t) = s'(t) − s(t): zero for t < j (causality), and the next-symbol
distribution after the passage moves from softmax(W_y h(T) + b_y) to softmax(W_y h'(T) + b_y).

:func:`suggest_edit` picks an edit worth showing: among the last few positions and the most frequent
symbols, the one furthest from the end whose KL(after ‖ before) is at least a threshold (so the change
visibly moves the prediction and still has steps left to travel), else the largest KL found.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from lmcore.training.lstm_trace import PassageTrace, trace_passage
from lmcore.training.neural_lm import NeuralLM
from lmcore.training.tokens import BOS, EOS, SPACE, UNK


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


def changed_units(delta: np.ndarray, k: int) -> np.ndarray:
    """The ``k`` units whose Δs(t) is largest in total (Σ_t |Δs(t)|), largest first."""
    return np.argsort(-np.abs(delta).sum(axis=1), kind="stable")[:k]


@torch.no_grad()
def suggest_edit(lm: NeuralLM, symbols: Sequence[str], last: int = 6, n_candidates: int = 12,
                 threshold: float = 0.1) -> tuple[int, str, float]:
    """(position, replacement, KL) of a telling edit of ``symbols``.

    Scores every edit of the ``last`` positions by the ``n_candidates`` most frequent symbols in one
    batch of the model: KL(after ‖ before) of the next-symbol distribution. Returns the edit furthest
    from the end with KL ≥ ``threshold`` (the largest KL at that position), else the largest KL.
    """
    candidates = [s for s in lm.vocab if s not in (BOS, EOS, UNK, SPACE)][:n_candidates]
    ids = [lm.table.bos_id, *lm.table.ids(symbols)]
    edits = [(p, r) for p in range(max(0, len(symbols) - last), len(symbols)) for r in candidates
             if r != symbols[p]]
    if not edits:
        return 0, candidates[0] if candidates else symbols[0], 0.0
    batch = torch.as_tensor([ids] + [ids[:p + 1] + [lm.table.stoi[r]] + ids[p + 2:] for p, r in edits])
    logits, _ = lm.model(batch)
    logp = torch.log_softmax(logits[:, -1].double(), dim=-1)
    kl = (logp[1:].exp() * (logp[1:] - logp[0])).sum(dim=-1).clamp_min(0.0).tolist()
    scored = sorted(zip(edits, kl), key=lambda e: (e[0][0], -e[1]))  # by position, best edit first
    strong = [e for e in scored if e[1] >= threshold]
    (position, replacement), value = strong[0] if strong else max(scored, key=lambda e: e[1])
    return position, replacement, float(value)
