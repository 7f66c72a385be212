"""A small, self-contained LM training run with and without gradient clipping (same seed).

The model is E → torch.nn.RNN/LSTM/GRU → W_y, trained with plain SGD on the corpus as one token
stream (sentences separated by </s>), random windows of ``seq_len`` tokens, fresh state per batch.
Per step we log J (mean cross-entropy), the global gradient norm ‖ĝ‖ before clipping and whether the
notes' rule ĝ ← threshold·ĝ/‖ĝ‖ fired. A run whose loss or norm turns inf/NaN stops there; the rest
of its log is NaN (no exception). The trained torch module converts to the explicit cells through
:func:`lmcore.recurrent.cells.weights_from_torch`.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from lmcore.recurrent.cells import DTYPE, weights_from_torch
from lmcore.recurrent.clipping import clip_gradients_, global_grad_norm
from lmcore.recurrent.rnn_lm import EOS, UNK, RNNLanguageModel
from lmcore.recurrent.weights import scaled_orthogonal
from lmcore.seeding import build_seeded, generator

MODULES = {"rnn": nn.RNN, "lstm": nn.LSTM, "gru": nn.GRU}


class TorchRecurrentLM(nn.Module):
    """Embedding (V×d) → one recurrent layer (n) → linear read-out (V)."""

    def __init__(self, vocab_size: int, emb: int, hidden: int, cell: str = "rnn") -> None:
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, emb)
        self.rnn = MODULES[cell](emb, hidden, batch_first=True)
        self.out = nn.Linear(hidden, vocab_size)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        h, _ = self.rnn(self.embedding(ids))
        return self.out(h)


def token_stream(sentences: list[list[str]], itos: list[str]) -> torch.Tensor:
    """All sentences as one id stream, each followed by </s>; unknown words → <unk>."""
    stoi = {w: i for i, w in enumerate(itos)}
    unk = stoi[UNK]
    ids = [stoi.get(w, unk) for s in sentences for w in list(s) + [EOS]]
    return torch.tensor(ids, dtype=torch.long)


@dataclass
class TrainingLog:
    """Per step: loss J, gradient norm before clipping, clipped or not (NaN after a blow-up)."""

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


def train_run(stream: torch.Tensor, vocab_size: int, *, cell: str = "rnn", emb: int = 16,
              hidden: int = 32, steps: int = 200, batch: int = 16, seq_len: int = 20,
              lr: float = 1.0, threshold: float | None = None, init_sigma1: float | None = None,
              seed: int = 0) -> tuple[TorchRecurrentLM, TrainingLog]:
    """SGD on random windows of the stream; clip to ``threshold`` when it is not None.

    ``init_sigma1`` sets the RNN's initial W_h = σ1·Q (a large σ1 provokes explosions).
    """
    model = build_seeded(lambda: TorchRecurrentLM(vocab_size, emb, hidden, cell), seed)
    if init_sigma1 is not None and cell == "rnn":
        g = generator(seed)
        with torch.no_grad():
            model.rnn.weight_hh_l0.copy_(scaled_orthogonal(hidden, init_sigma1, g).float())
    data_gen = torch.Generator().manual_seed(40_000 + seed)
    loss_log, norm_log = np.full(steps, np.nan), np.full(steps, np.nan)
    clip_log = np.zeros(steps, dtype=bool)
    span = max(len(stream) - seq_len - 1, 1)
    diverged = None
    for step in range(steps):
        starts = torch.randint(0, span, (batch,), generator=data_gen)
        window = torch.stack([stream[s: s + seq_len + 1] for s in starts.tolist()])
        logits = model(window[:, :-1])
        loss = nn.functional.cross_entropy(logits.reshape(-1, vocab_size), window[:, 1:].reshape(-1))
        model.zero_grad()
        loss.backward()
        if threshold is None:
            norm, clipped = global_grad_norm(model.parameters()), False
        else:
            norm, clipped = clip_gradients_(model.parameters(), threshold)
        loss_log[step], norm_log[step], clip_log[step] = loss.item(), norm, clipped
        if not (np.isfinite(norm) and np.isfinite(loss.item())):
            diverged = step
            break
        with torch.no_grad():
            for p in model.parameters():
                p -= lr * p.grad
    return model, TrainingLog(loss_log, norm_log, clip_log, threshold, diverged)


def clipping_experiment(stream: torch.Tensor, vocab_size: int, threshold: float,
                        **kwargs: object) -> dict[str, TrainingLog]:
    """The same run (same seed, same batches) without and with clipping."""
    _, plain = train_run(stream, vocab_size, threshold=None, **kwargs)
    _, clipped = train_run(stream, vocab_size, threshold=threshold, **kwargs)
    return {"unclipped": plain, "clipped": clipped}


def to_language_model(model: TorchRecurrentLM, itos: list[str]) -> RNNLanguageModel:
    """The trained torch model as an explicit float64 :class:`RNNLanguageModel`."""
    return RNNLanguageModel(
        itos=list(itos),
        embedding=model.embedding.weight.detach().to(DTYPE).clone(),
        cell=weights_from_torch(model.rnn),
        W_y=model.out.weight.detach().to(DTYPE).clone(),
        b_y=model.out.bias.detach().to(DTYPE).clone(),
    )
