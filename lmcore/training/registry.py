"""The shipped recurrent models (``assets/pretrained``): loaded once, shared read-only.

Thread-safe: several sessions ask at once. Models trained in the app are kept elsewhere (the
server's store, per owner); a shipped model is never replaced by a run.
"""
from __future__ import annotations

import threading
from collections.abc import Callable

from lmcore.training.config import TrainConfig
from lmcore.training.neural_lm import NeuralLM
from lmcore.training.persist import load_pretrained


class ShippedModels:
    """Shipped models by (corpus key, config key); ``loader`` finds one (None: none shipped)."""

    def __init__(self, loader: Callable[[str, TrainConfig], NeuralLM | None] = load_pretrained) -> None:
        self.loader = loader
        self._lock = threading.Lock()
        self._models: dict[tuple[str, str], NeuralLM | None] = {}

    def get(self, corpus_key: str, config: TrainConfig) -> NeuralLM | None:
        """The shipped model for this corpus and config (loaded on first use), or None."""
        key = (corpus_key, config.key())
        with self._lock:
            if key not in self._models:
                self._models[key] = self.loader(corpus_key, config)
            return self._models[key]

    def holds(self, lm: NeuralLM) -> bool:
        """Whether ``lm`` is one of the shipped models (the very object)."""
        with self._lock:
            return any(lm is shipped for shipped in self._models.values())
