"""Trained models of a running app, keyed by (corpus.key, config.key()), with the shipped ones as fallback."""
from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable
from functools import lru_cache

from lmcore.training.config import TrainConfig
from lmcore.training.neural_lm import NeuralLM
from lmcore.training.persist import load_pretrained


class ModelRegistry:
    """A bounded store of trained models (least recently added dropped first); read-only models
    may be shared by every session. ``loader`` finds a shipped model when none was trained here."""

    def __init__(self, capacity: int = 24,
                 loader: Callable[[str, TrainConfig], NeuralLM | None] = load_pretrained) -> None:
        self.capacity, self.loader = capacity, loader
        self._models: OrderedDict[tuple[str, str], NeuralLM] = OrderedDict()
        self._shipped: dict[tuple[str, str], NeuralLM | None] = {}

    def put(self, lm: NeuralLM) -> None:
        key = (lm.corpus_key, lm.config.key())
        self._models.pop(key, None)
        self._models[key] = lm
        while len(self._models) > self.capacity:
            self._models.popitem(last=False)

    def trained(self, corpus_key: str, config: TrainConfig) -> NeuralLM | None:
        return self._models.get((corpus_key, config.key()))

    def get(self, corpus_key: str, config: TrainConfig) -> NeuralLM | None:
        """The model trained here, else the shipped one (``is_shipped`` tells which)."""
        found = self.trained(corpus_key, config)
        if found is not None:
            return found
        key = (corpus_key, config.key())
        if key not in self._shipped:
            self._shipped[key] = self.loader(corpus_key, config)
        return self._shipped[key]

    def is_shipped(self, lm: NeuralLM) -> bool:
        return lm in self._shipped.values() and lm not in self._models.values()

    def for_corpus(self, corpus_key: str, defaults: Iterable[TrainConfig] = ()) -> list[NeuralLM]:
        """Every model of this corpus: trained ones (newest first), then shipped ones for ``defaults``."""
        found = [lm for (ck, _), lm in reversed(self._models.items()) if ck == corpus_key]
        for config in defaults:
            lm = self.get(corpus_key, config)
            if lm is not None and lm not in found:
                found.append(lm)
        return found

    def pick(self, corpus_key: str, cell: str, level: str | None = None,
             defaults: Iterable[TrainConfig] = ()) -> NeuralLM | None:
        """The newest model of this corpus with this cell (and level), else None."""
        for lm in self.for_corpus(corpus_key, defaults):
            if lm.config.cell == cell and (level is None or lm.config.level == level):
                return lm
        return None


@lru_cache(maxsize=1)
def shared_registry() -> ModelRegistry:
    """The process-wide registry: models trained on the LSTM page are visible to every page
    (e.g. ``shared_registry().pick(corpus.key, "lstm", defaults=[TrainConfig()])`` for the chain rule)."""
    return ModelRegistry()
