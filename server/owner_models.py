"""One browser's trained recurrent models, kept in the model store, with the shipped ones as fallback.

A model trained by one owner is found only by that owner (its key and tags name the owner); shipped
models (``lmcore.training.registry.ShippedModels``) are shared read-only and never replaced by a run.
The store bounds them by bytes, least recently used first (any owner's). Through a serialising back
end a model travels as its state dict (``lmcore.training.persist.to_bytes``).
"""
from __future__ import annotations

from collections.abc import Iterable

from lmcore.training.config import TrainConfig
from lmcore.training.neural_lm import NeuralLM
from lmcore.training.registry import ShippedModels
from server.sizes import nbytes
from server.store import Store, store_key


def owner_tag(owner: str) -> str:
    """The tag of everything an owner (a browser) trained."""
    return "owner:" + owner


class OwnerModels:
    """The trained models of ``owner`` in ``store``, then the shipped ones."""

    def __init__(self, store: Store, shipped: ShippedModels, owner: str) -> None:
        self.store, self.shipped, self.owner = store, shipped, owner

    def _key(self, corpus_key: str, config: TrainConfig) -> str:
        return store_key("lm", self.owner, corpus_key, config.key())

    def _corpus_tag(self, corpus_key: str) -> str:
        return store_key("lm-of", self.owner, corpus_key)

    def put(self, lm: NeuralLM) -> None:
        """Keep a model trained for the owner (replacing the owner's model of the same config);
        raises ``server.store.TooLarge`` when it alone exceeds the store's limit for one item."""
        self.store.put(self._key(lm.corpus_key, lm.config), lm, nbytes(lm),
                       tags=[owner_tag(self.owner), self._corpus_tag(lm.corpus_key)])

    def get(self, corpus_key: str, config: TrainConfig) -> NeuralLM | None:
        """The owner's model for this config, else the shipped one (``is_shipped`` tells which)."""
        return self.store.get(self._key(corpus_key, config)) or self.shipped.get(corpus_key, config)

    def is_shipped(self, lm: NeuralLM) -> bool:
        return self.shipped.holds(lm)

    def for_corpus(self, corpus_key: str, defaults: Iterable[TrainConfig] = ()) -> list[NeuralLM]:
        """The owner's models of this corpus (newest first), then shipped ones for ``defaults``."""
        found = [lm for key in self.store.tagged(self._corpus_tag(corpus_key))
                 if (lm := self.store.get(key)) is not None]
        for config in defaults:
            lm = self.shipped.get(corpus_key, config)
            if lm is not None and all(lm is not f for f in found):
                found.append(lm)
        return found

    def pick(self, corpus_key: str, cell: str, level: str | None = None,
             defaults: Iterable[TrainConfig] = ()) -> NeuralLM | None:
        """The owner's newest model of this corpus with this cell (and level), else a shipped one."""
        for lm in self.for_corpus(corpus_key, defaults):
            if lm.config.cell == cell and (level is None or lm.config.level == level):
                return lm
        return None
