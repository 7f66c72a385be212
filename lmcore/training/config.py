"""What to train: one frozen dataclass whose :meth:`TrainConfig.key` names a trained model."""
from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, fields, replace

CELLS: tuple[str, ...] = ("rnn", "lstm", "gru")
MIN_TRAIN_TOKENS = 50
"""Fewer training tokens (``</s>`` counted) than this: the pages do not offer to train."""
LEVELS: tuple[str, ...] = ("word", "char")


@dataclass(frozen=True)
class TrainConfig:
    """Hyper-parameters of a recurrent language model and of its training run.

    ``cell``: "rnn" (the notes' h(t) = tanh(W_h h(t−1) + W_x x(t) + b_h)), "lstm" or "gru".
    ``level``: "word" (the corpus tokens) or "char" (characters of the tokens, joined by spaces).
    ``steps``: optimizer updates (one per BPTT chunk of ``bptt`` steps of a ``batch_size`` batch);
    ``epochs`` caps the passes over the training split; ``max_seconds`` optionally caps wall time.
    ``unk_replace``: probability that a training word seen once is read as ``<unk>`` (per epoch),
    so the model learns how often unseen words occur (word level).
    ``keep_best``: early stopping — the returned weights are those of the best validation score.
    ``clip``: gradient clipping threshold on the global norm (ĝ ← threshold/‖ĝ‖ · ĝ); 0 = off.
    """

    cell: str = "lstm"
    level: str = "word"
    embed_dim: int = 64
    hidden_size: int = 128
    steps: int = 800
    epochs: int = 30
    bptt: int = 35
    batch_size: int = 32
    lr: float = 5e-3
    clip: float = 1.0
    dropout: float = 0.3
    seed: int = 0
    eval_every: int = 50
    report_every: int = 10
    max_seconds: float | None = None
    keep_best: bool = True
    tie_weights: bool = False
    unk_replace: float = 0.5

    def __post_init__(self) -> None:
        if self.cell not in CELLS:
            raise ValueError(f"cell must be one of {CELLS}, got {self.cell!r}")
        if self.level not in LEVELS:
            raise ValueError(f"level must be one of {LEVELS}, got {self.level!r}")
        for name in ("embed_dim", "hidden_size", "steps", "epochs", "bptt", "batch_size"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1")
        if not 0.0 <= self.unk_replace <= 1.0:
            raise ValueError("unk_replace must be in [0, 1]")
        if not 0.0 <= self.dropout < 1.0:
            raise ValueError("dropout must be in [0, 1)")
        if self.tie_weights and self.embed_dim != self.hidden_size:
            raise ValueError("tie_weights needs embed_dim == hidden_size")
        if self.lr <= 0 or self.clip < 0:
            raise ValueError("lr must be > 0 and clip >= 0")

    def key(self) -> str:
        """A short stable hash of the settings that change the trained weights.

        Reporting cadence and the time cap are left out: they do not change
        what one optimizer step computes (``max_seconds`` only decides when to stop).
        """
        skip = {"report_every", "max_seconds"}
        data = {k: v for k, v in asdict(self).items() if k not in skip}
        return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]

    def with_(self, **changes: object) -> TrainConfig:
        """A copy with some fields changed (validated again)."""
        return replace(self, **changes)

    def to_dict(self) -> dict[str, object]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> TrainConfig:
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})


def enough_to_train(sentences: list[list[str]]) -> bool:
    """True when the sentences hold at least ``MIN_TRAIN_TOKENS`` tokens (``</s>`` counted)."""
    return sum(len(s) + 1 for s in sentences) >= MIN_TRAIN_TOKENS
