"""Save and load trained models; the pretrained files shipped in ``assets/pretrained/``.

A file holds the configuration, the symbol table, the weights (float16 for shipped models, to keep
them small; they are loaded back as float32) and the training history. Pretrained files are named
``<corpus.key>__<config.key()>.pt``: the page finds one when the sidebar's corpus (same text and
settings, hence same key) and the chosen configuration match.
"""
from __future__ import annotations

import io
from dataclasses import asdict
from pathlib import Path

import torch

from lmcore.training.config import TrainConfig
from lmcore.training.loop import build_model
from lmcore.training.neural_lm import NeuralLM
from lmcore.training.progress import Progress
from lmcore.training.tokens import SymbolTable

PRETRAINED_DIR = Path(__file__).resolve().parents[2] / "assets" / "pretrained"


def file_name(corpus_key: str, config: TrainConfig) -> str:
    return f"{corpus_key}__{config.key()}.pt"


def to_bytes(lm: NeuralLM, half: bool = False) -> bytes:
    """The model as bytes (``half``: weights stored as float16)."""
    weights = {k: (v.half() if half and v.is_floating_point() else v).clone()
               for k, v in lm.model.state_dict().items()}
    payload = {
        "config": lm.config.to_dict(), "level": lm.table.level, "itos": list(lm.table.itos),
        "weights": weights, "history": [asdict(p) for p in lm.history], "stopped": lm.stopped,
        "corpus_key": lm.corpus_key, "selected_step": lm.selected_step, "valid_ppl": lm.valid_ppl,
    }
    buffer = io.BytesIO()
    torch.save(payload, buffer)
    return buffer.getvalue()


def from_bytes(data: bytes) -> NeuralLM:
    """The inverse of :func:`to_bytes` (weights as float32)."""
    payload = torch.load(io.BytesIO(data), weights_only=True)
    config = TrainConfig.from_dict(payload["config"])
    table = SymbolTable(payload["level"], tuple(payload["itos"]))
    model = build_model(config, table)
    model.load_state_dict({k: v.float() if v.is_floating_point() else v for k, v in payload["weights"].items()})
    return NeuralLM(model, table, config, [Progress(**p) for p in payload["history"]], payload["stopped"],
                    payload["corpus_key"], payload["selected_step"], payload["valid_ppl"])


def save_pretrained(lm: NeuralLM, directory: Path = PRETRAINED_DIR) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / file_name(lm.corpus_key, lm.config)
    path.write_bytes(to_bytes(lm, half=True))
    return path


def load_pretrained(corpus_key: str, config: TrainConfig, directory: Path = PRETRAINED_DIR) -> NeuralLM | None:
    """The shipped model for this corpus and configuration, or None."""
    path = directory / file_name(corpus_key, config)
    return from_bytes(path.read_bytes()) if path.is_file() else None
