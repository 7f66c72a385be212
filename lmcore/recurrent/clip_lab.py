"""The clipping lab's settings grid and its shipped logs (instant for the built-in corpora).

The page offers ``LEARNING_RATES`` × ``THRESHOLDS`` around :class:`ClipRunSettings` defaults. For
each built-in corpus ``assets/pretrained/make_clip_logs.py`` runs the whole grid once and saves it as
``clip-<corpus.key>.npz``: per learning rate the unclipped run (it does not depend on the threshold)
and one clipped run per threshold, each as float32 losses and norms of ``steps`` entries (NaN after
a blow-up). :func:`shipped_logs` reads them back as the :class:`TrainingLog` a live run returns.
"""
from __future__ import annotations

from dataclasses import asdict, replace
from pathlib import Path

import numpy as np

from lmcore.recurrent.clip_run import ClipRunSettings, TrainingLog, sgd_run

LEARNING_RATES: tuple[float, ...] = (1.0, 2.0, 5.0, 8.0)
THRESHOLDS: tuple[float, ...] = (0.25, 0.5, 1.0, 2.0, 5.0)
DEFAULT = ClipRunSettings()
LOG_DIR = Path(__file__).resolve().parents[2] / "assets" / "pretrained"
_FIXED = [k for k in asdict(DEFAULT) if k not in ("lr", "threshold")]


def log_path(corpus_key: str, directory: Path = LOG_DIR) -> Path:
    return directory / f"clip-{corpus_key}.npz"


def in_grid(settings: ClipRunSettings) -> bool:
    """True when ``settings`` is a point of the shipped grid (defaults except lr and threshold)."""
    return (settings.lr in LEARNING_RATES and settings.threshold in THRESHOLDS
            and replace(settings, lr=DEFAULT.lr, threshold=DEFAULT.threshold) == DEFAULT)


def _log(loss: np.ndarray, norm: np.ndarray, clipped: np.ndarray, diverged: int,
         threshold: float | None) -> TrainingLog:
    return TrainingLog(loss.astype(np.float64), norm.astype(np.float64), clipped.astype(bool), threshold,
                       None if diverged < 0 else int(diverged))


def _store(out: dict[str, np.ndarray], prefix: str, index: tuple, log: TrainingLog) -> None:
    out[f"{prefix}_loss"][index], out[f"{prefix}_norm"][index] = log.loss, log.grad_norm
    out[f"{prefix}_clipped"][index] = log.clipped
    out[f"{prefix}_diverged"][index] = -1 if log.diverged_at is None else log.diverged_at


def grid_logs(train, vocab_itos, settings: ClipRunSettings = DEFAULT) -> dict[str, np.ndarray]:
    """Every run of the grid on a corpus's training split, as the arrays :func:`save_grid` writes."""
    shapes = {"plain": (len(LEARNING_RATES),), "clip": (len(LEARNING_RATES), len(THRESHOLDS))}
    out: dict[str, np.ndarray] = {}
    for prefix, shape in shapes.items():
        out[f"{prefix}_loss"] = np.zeros((*shape, settings.steps), np.float32)
        out[f"{prefix}_norm"] = np.zeros((*shape, settings.steps), np.float32)
        out[f"{prefix}_clipped"] = np.zeros((*shape, settings.steps), bool)
        out[f"{prefix}_diverged"] = np.zeros(shape, np.int16)
    for i, lr in enumerate(LEARNING_RATES):
        _store(out, "plain", (i,), sgd_run(train, vocab_itos, replace(settings, lr=lr), None))
        for j, threshold in enumerate(THRESHOLDS):
            run = sgd_run(train, vocab_itos, replace(settings, lr=lr, threshold=threshold), threshold)
            _store(out, "clip", (i, j), run)
    return out


def save_grid(path: Path, arrays: dict[str, np.ndarray], settings: ClipRunSettings = DEFAULT) -> None:
    fixed = np.array([getattr(settings, k) for k in _FIXED], dtype=np.float64)
    np.savez_compressed(path, fixed=fixed, lrs=np.array(LEARNING_RATES), thresholds=np.array(THRESHOLDS),
                        **arrays)


def shipped_logs(corpus_key: str, settings: ClipRunSettings, directory: Path = LOG_DIR
                 ) -> dict[str, TrainingLog] | None:
    """The two logs of ``settings`` shipped for this corpus, or None (not shipped, or not in the grid)."""
    path = log_path(corpus_key, directory)
    if not in_grid(settings) or not path.is_file():
        return None
    with np.load(path) as data:
        fixed = [getattr(settings, k) for k in _FIXED]
        if not np.array_equal(data["fixed"], np.array(fixed, dtype=np.float64)):
            return None
        i = list(data["lrs"]).index(settings.lr)
        j = list(data["thresholds"]).index(settings.threshold)
        return {"unclipped": _log(data["plain_loss"][i], data["plain_norm"][i], data["plain_clipped"][i],
                                  int(data["plain_diverged"][i]), None),
                "clipped": _log(data["clip_loss"][i, j], data["clip_norm"][i, j], data["clip_clipped"][i, j],
                                int(data["clip_diverged"][i, j]), settings.threshold)}
