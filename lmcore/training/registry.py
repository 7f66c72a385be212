"""Trained models of a running app, per owner (a browser session), with the shipped ones as fallback.

Several sessions read and write at once, so every access holds one lock. A model trained by one
owner is found only by that owner; shipped models (``assets/pretrained``) are shared read-only and
are never replaced by a run. The store is bounded by bytes, not by count: when a new model would
exceed ``capacity_bytes`` the least recently used trained models go first (any owner's).
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable

from lmcore.training.config import TrainConfig
from lmcore.training.neural_lm import NeuralLM
from lmcore.training.persist import load_pretrained

Key = tuple[str, str, str]  # (owner, corpus key, config key)


def model_nbytes(lm: NeuralLM) -> int:
    """Bytes held by the model's tensors (parameters and buffers), plus a small fixed overhead."""
    tensors = list(lm.model.parameters()) + list(lm.model.buffers())
    return sum(t.numel() * t.element_size() for t in tensors) + 64 * len(lm.history) + 4096


class ModelRegistry:
    """Trained models keyed by (owner, corpus.key, config.key()); ``loader`` finds shipped ones."""

    def __init__(self, capacity_bytes: int = 512 * 2**20,
                 loader: Callable[[str, TrainConfig], NeuralLM | None] = load_pretrained) -> None:
        self.capacity_bytes, self.loader = capacity_bytes, loader
        self._lock = threading.RLock()
        self._models: OrderedDict[Key, tuple[NeuralLM, int]] = OrderedDict()
        self._shipped: dict[tuple[str, str], NeuralLM | None] = {}
        self._bytes = 0

    @property
    def nbytes(self) -> int:
        with self._lock:
            return self._bytes

    def put(self, owner: str, lm: NeuralLM) -> None:
        """Store a model trained for ``owner`` (replacing the owner's model of the same config)."""
        size = model_nbytes(lm)
        key = (owner, lm.corpus_key, lm.config.key())
        with self._lock:
            if key in self._models:
                self._bytes -= self._models.pop(key)[1]
            self._models[key] = (lm, size)
            self._bytes += size
            while self._bytes > self.capacity_bytes and len(self._models) > 1:
                self._bytes -= self._models.popitem(last=False)[1][1]

    def trained(self, owner: str, corpus_key: str, config: TrainConfig) -> NeuralLM | None:
        with self._lock:
            found = self._models.get((owner, corpus_key, config.key()))
            if found is None:
                return None
            self._models.move_to_end((owner, corpus_key, config.key()))
            return found[0]

    def shipped(self, corpus_key: str, config: TrainConfig) -> NeuralLM | None:
        """The shipped model for this corpus and config (loaded once, shared read-only), or None."""
        key = (corpus_key, config.key())
        with self._lock:
            if key not in self._shipped:
                self._shipped[key] = self.loader(corpus_key, config)
            return self._shipped[key]

    def get(self, owner: str, corpus_key: str, config: TrainConfig) -> NeuralLM | None:
        """The owner's model for this config, else the shipped one (``is_shipped`` tells which)."""
        return self.trained(owner, corpus_key, config) or self.shipped(corpus_key, config)

    def is_shipped(self, lm: NeuralLM) -> bool:
        with self._lock:
            return any(lm is s for s in self._shipped.values())

    def for_corpus(self, owner: str, corpus_key: str, defaults: Iterable[TrainConfig] = ()) -> list[NeuralLM]:
        """The owner's models of this corpus (newest first), then shipped ones for ``defaults``."""
        with self._lock:
            found = [lm for (o, ck, _), (lm, _) in reversed(self._models.items()) if o == owner and ck == corpus_key]
        for config in defaults:
            lm = self.shipped(corpus_key, config)
            if lm is not None and all(lm is not f for f in found):
                found.append(lm)
        return found

    def pick(self, owner: str, corpus_key: str, cell: str, level: str | None = None,
             defaults: Iterable[TrainConfig] = ()) -> NeuralLM | None:
        """The owner's newest model of this corpus with this cell (and level), else a shipped one."""
        for lm in self.for_corpus(owner, corpus_key, defaults):
            if lm.config.cell == cell and (level is None or lm.config.level == level):
                return lm
        return None


class OwnerModels:
    """One owner's view of a registry: the same questions without repeating the owner."""

    def __init__(self, registry: ModelRegistry, owner: str) -> None:
        self.registry, self.owner = registry, owner

    def put(self, lm: NeuralLM) -> None:
        self.registry.put(self.owner, lm)

    def get(self, corpus_key: str, config: TrainConfig) -> NeuralLM | None:
        return self.registry.get(self.owner, corpus_key, config)

    def trained(self, corpus_key: str, config: TrainConfig) -> NeuralLM | None:
        return self.registry.trained(self.owner, corpus_key, config)

    def is_shipped(self, lm: NeuralLM) -> bool:
        return self.registry.is_shipped(lm)

    def for_corpus(self, corpus_key: str, defaults: Iterable[TrainConfig] = ()) -> list[NeuralLM]:
        return self.registry.for_corpus(self.owner, corpus_key, defaults)

    def pick(self, corpus_key: str, cell: str, level: str | None = None,
             defaults: Iterable[TrainConfig] = ()) -> NeuralLM | None:
        return self.registry.pick(self.owner, corpus_key, cell, level, defaults)
