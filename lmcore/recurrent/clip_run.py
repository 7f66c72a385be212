"""The clipping lab's training run: the recurrent LM of :mod:`lmcore.training` (same network, same
vocabulary, same ``<s> … </s>`` sentence batches as the Adam trainer) trained with plain SGD, once
without and once with the notes' clipping rule, from the same seed on the same batches.

It is deliberately unstable — W_h starts at σ1·Q with σ1 > 1 and the learning rate is large — so
that the unclipped run meets exploding gradients. Per step we log J (mean cross-entropy over the
chunk's real targets), the global gradient norm ‖ĝ‖ before clipping, and whether
ĝ ← threshold·ĝ/‖ĝ‖ fired; then θ ← θ − η·ĝ. A run that diverges (:func:`has_diverged`: a loss or norm
that is inf/NaN, or a loss beyond ``DIVERGED_LOSS_FACTOR``·ln|V|) stops there; the rest of its log is
NaN (no exception).
"""
from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import math

import numpy as np
import torch

from lmcore.recurrent.clipping import clip_gradients_, global_grad_norm
from lmcore.recurrent.weights import scaled_orthogonal
from lmcore.seeding import generator
from lmcore.training.batches import Batch, shuffled_batches
from lmcore.training.config import TrainConfig
from lmcore.training.loop import build_model, chunk_loss
from lmcore.training.model import RecurrentLM, detach_state
from lmcore.training.steps import count_step
from lmcore.training.tokens import SymbolTable, build_table

RUNS: tuple[str, ...] = ("unclipped", "clipped")
DIVERGED_LOSS_FACTOR = 1000.0


def has_diverged(loss: float, norm: float, vocab_size: int) -> bool:
    """True when the run has blown up: J or ‖ĝ‖ is inf/NaN, or J > 1000·ln|V|.

    ln|V| is the loss of guessing uniformly over the |V| output symbols; a mean loss a thousand times
    that means logit gaps in the thousands, weights that an update has thrown off, not a bad step
    (the worst loss of any shipped grid run is 32·ln|V|). The bound, not overflow, is what
    makes the verdict the same on every CPU: whether such a loss reaches inf or NaN in float32 depends
    on how a CPU's kernels round (a run at 3e30 stayed finite on one machine, overflowed on another).
    """
    return bool(not (math.isfinite(loss) and math.isfinite(norm)) or loss > DIVERGED_LOSS_FACTOR * math.log(vocab_size))


@dataclass(frozen=True)
class ClipRunSettings:
    """One clipping-lab run: SGD with learning rate ``lr`` for ``steps`` updates on batches of
    ``batch`` sentences cut into chunks of ``bptt`` steps; a tanh RNN of ``embed_dim``/``hidden``
    whose W_h starts at σ1·Q with σ1 = ``init_sigma1``; ``threshold`` for the clipped run."""

    steps: int = 200
    batch: int = 16
    bptt: int = 20
    lr: float = 5.0
    threshold: float = 1.0
    init_sigma1: float = 1.5
    seed: int = 0
    embed_dim: int = 16
    hidden: int = 32

    def model_config(self) -> TrainConfig:
        """The network, described as the Adam trainer describes its models (no dropout)."""
        return TrainConfig(cell="rnn", embed_dim=self.embed_dim, hidden_size=self.hidden, dropout=0.0,
                           seed=self.seed, bptt=self.bptt, batch_size=self.batch, steps=self.steps)


@dataclass
class TrainingLog:
    """Per step: loss J, gradient norm before clipping, clipped or not; ``diverged_at`` is the step where
    :func:`has_diverged` first held (its entries are logged, the later ones are NaN), or None."""

    loss: np.ndarray
    grad_norm: np.ndarray
    clipped: np.ndarray
    threshold: float | None
    diverged_at: int | None

    @property
    def clipped_share(self) -> float:
        """Share of the steps actually run where clipping fired."""
        ran = np.isfinite(self.grad_norm)
        return float(self.clipped[ran].mean()) if ran.any() else 0.0


def sgd_model(table: SymbolTable, settings: ClipRunSettings) -> RecurrentLM:
    """The Adam trainer's network for ``table``, seeded, with W_h = σ1·Q."""
    model = build_model(settings.model_config(), table)
    with torch.no_grad():
        model.rnn.weight_hh_l0.copy_(scaled_orthogonal(settings.hidden, settings.init_sigma1,
                                                       generator(settings.seed)).float())
    return model


def chunks_forever(encoded: Sequence[Sequence[int]], table: SymbolTable, settings: ClipRunSettings,
                   ) -> Iterator[tuple[Batch, bool]]:
    """(chunk, first chunk of its batch?) over seeded shuffled epochs, as the Adam trainer batches."""
    order = generator(settings.seed)
    while True:
        for batch in shuffled_batches(encoded, settings.batch, table.bos_id, order):
            for n, chunk in enumerate(batch.chunks(settings.bptt)):
                yield chunk, n == 0


def sgd_run(train: Sequence[Sequence[str]], vocab_itos: Sequence[str], settings: ClipRunSettings,
            threshold: float | None, should_stop: Callable[[int], bool] | None = None) -> TrainingLog:
    """One run: clip to ``threshold`` unless it is None. ``should_stop(step)`` may end it early."""
    table = build_table("word", vocab_itos, train)
    encoded = [table.encode(s) for s in train]
    if not encoded:
        raise ValueError("the training split is empty")
    model = sgd_model(table, settings)
    model.train()
    steps = settings.steps
    loss_log, norm_log = np.full(steps, np.nan), np.full(steps, np.nan)
    clip_log = np.zeros(steps, dtype=bool)
    diverged, state = None, None
    for step, (chunk, fresh) in zip(range(steps), chunks_forever(encoded, table, settings)):
        if should_stop is not None and should_stop(step):
            break
        loss, state = chunk_loss(model, chunk, None if fresh else state)
        model.zero_grad(set_to_none=True)
        loss.backward()
        if threshold is None:
            norm, clipped = global_grad_norm(model.parameters()), False
        else:
            norm, clipped = clip_gradients_(model.parameters(), threshold)
        loss_log[step], norm_log[step], clip_log[step] = loss.item(), norm, clipped
        if has_diverged(loss_log[step], norm, table.size):
            diverged = step
            break
        with torch.no_grad():
            for p in model.parameters():
                if p.grad is not None:
                    p -= settings.lr * p.grad
        count_step("sgd-clip")
        state = detach_state(state)
    return TrainingLog(loss_log, norm_log, clip_log, threshold, diverged)


def clipping_experiment(train: Sequence[Sequence[str]], vocab_itos: Sequence[str], settings: ClipRunSettings,
                        report: Callable[[float], bool] | None = None) -> dict[str, TrainingLog]:
    """The same run (same seed, same batches) without and with clipping at ``settings.threshold``.

    ``report(fraction)`` is called every 10 steps; when it returns True the runs stop there."""
    logs: dict[str, TrainingLog] = {}
    for n, name in enumerate(RUNS):
        def should_stop(step: int, n: int = n) -> bool:
            return report is not None and step % 10 == 0 and bool(report((n + step / settings.steps) / len(RUNS)))

        logs[name] = sgd_run(train, vocab_itos, settings, None if name == "unclipped" else settings.threshold,
                             should_stop)
    return logs
