"""Shipped pretrained models (assets/seq2seq/<task>-<attention>.pt, float16 weights) and their
training recipe; assets/seq2seq/make_pretrained.py rebuilds them with :data:`RECIPES`."""
from __future__ import annotations

from pathlib import Path

import torch

from lmcore.seq2seq.model import Seq2Seq, Seq2SeqConfig
from lmcore.seq2seq.training import Seq2SeqRecipe

ASSETS = Path(__file__).resolve().parents[2] / "assets" / "seq2seq"
DEFAULT_TASK = "reverse"

RECIPES: dict[tuple[str, str], Seq2SeqRecipe] = {
    ("reverse", "none"): Seq2SeqRecipe("reverse", 2, 12, steps=2500),
    ("reverse", "dot"): Seq2SeqRecipe("reverse", 2, 12, steps=2500),
    ("reverse", "additive"): Seq2SeqRecipe("reverse", 2, 12, steps=2500),
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
