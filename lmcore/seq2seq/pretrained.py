"""Shipped pretrained models (assets/seq2seq/<task>-<attention>.pt, float16 weights) and their
training recipe; assets/seq2seq/make_pretrained.py rebuilds them with :data:`RECIPES`.

Their bottleneck curves (accuracy and per-token log-likelihood vs source length, on
``EVAL_N`` held-out examples per length, ``lmcore.seq2seq.evaluation.evaluate_by_length``) are
shipped too, in ``evaluation.json``, so a page shows them without decoding thousands of examples.
Each entry names the SHA-256 of the weights it was measured on: a retrained file without a fresh
evaluation is not matched.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import torch

from lmcore.seq2seq.evaluation import LengthResult
from lmcore.seq2seq.model import Seq2Seq, Seq2SeqConfig
from lmcore.seq2seq.training import Seq2SeqRecipe

ASSETS = Path(__file__).resolve().parents[2] / "assets" / "seq2seq"
EVALUATION = ASSETS / "evaluation.json"
DEFAULT_TASK = "reverse"
EVAL_N, EVAL_SEED = 200, 1234  # held-out examples per source length, and their sampling seed

RECIPES: dict[tuple[str, str], Seq2SeqRecipe] = {
    ("copy", "none"): Seq2SeqRecipe("copy", 2, 12, steps=2500),
    ("copy", "dot"): Seq2SeqRecipe("copy", 2, 12, steps=2500),
    ("reverse", "none"): Seq2SeqRecipe("reverse", 2, 12, steps=2500),
    ("reverse", "dot"): Seq2SeqRecipe("reverse", 2, 12, steps=2500),
    ("reverse", "additive"): Seq2SeqRecipe("reverse", 2, 12, steps=2500),
    ("sort", "none"): Seq2SeqRecipe("sort", 2, 12, steps=2500),
    ("sort", "dot"): Seq2SeqRecipe("sort", 2, 12, steps=2500),
    ("translate", "none"): Seq2SeqRecipe("translate", 2, 8, steps=2500),
    ("translate", "dot"): Seq2SeqRecipe("translate", 2, 8, steps=2500),
}


def asset_path(task: str, attention: str) -> Path:
    return ASSETS / f"{task}-{attention}.pt"


def save_model(model: Seq2Seq, train_config: Seq2SeqRecipe, path: Path) -> None:
    state = {k: v.half() for k, v in model.state_dict().items()}
    torch.save({"config": model.config.to_dict(), "train": train_config.__dict__, "state": state}, path)


def load_model(path: Path) -> tuple[Seq2Seq, Seq2SeqRecipe]:
    blob = torch.load(path, map_location="cpu", weights_only=True)
    model = Seq2Seq(Seq2SeqConfig(**blob["config"]))
    model.load_state_dict({k: v.float() for k, v in blob["state"].items()})
    model.eval()
    known = Seq2SeqRecipe.__dataclass_fields__
    return model, Seq2SeqRecipe(**{k: v for k, v in blob["train"].items() if k in known})


def shipped_models(attention: str = "dot") -> list[tuple[str, str]]:
    """(task, attention) pairs whose weights are shipped in assets/seq2seq."""
    return [key for key in RECIPES if key[1] == attention and asset_path(*key).exists()]


def pretrained(task: str, attention: str) -> tuple[Seq2Seq, Seq2SeqRecipe] | None:
    """The shipped model for (task, attention), or None when it is not shipped."""
    path = asset_path(task, attention)
    return load_model(path) if path.exists() else None


def weights_digest(path: Path) -> str:
    """SHA-256 (hex, first 16 digits) of a shipped weights file."""
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def shipped_evaluation(task: str, attention: str, n: int = EVAL_N,
                       seed: int = EVAL_SEED) -> list[LengthResult] | None:
    """The shipped bottleneck curve of (task, attention), or None when there is none for exactly
    these weights, ``n`` and ``seed``."""
    path = asset_path(task, attention)
    if not (path.exists() and EVALUATION.exists()):
        return None
    data = json.loads(EVALUATION.read_text(encoding="utf-8"))
    entry = data.get("models", {}).get(f"{task}-{attention}")
    if data.get("n") != n or data.get("seed") != seed or not entry or entry["weights"] != weights_digest(path):
        return None
    return [LengthResult(int(length), float(acc), float(loglik), int(count))
            for length, acc, loglik, count in entry["rows"]]
