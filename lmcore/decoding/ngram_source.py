"""Finding an n-gram LM to decode with, tolerant of :mod:`lmcore.ngram` not being there yet.

:func:`ngram_fitter` returns ``fit(sentences, order) -> model`` (a model with
``distribution(context)`` over ``model.vocab``) or ``None`` when no such entry point exists.
"""
from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from typing import Any

ENTRY_POINTS: tuple[str, ...] = ("NgramModel", "fit_ngram", "fit", "train")


def ngram_fitter() -> Callable[[Sequence[Sequence[str]], int], Any] | None:
    """The first usable constructor of an n-gram model in :mod:`lmcore.ngram`, or None."""
    try:
        module = importlib.import_module("lmcore.ngram")
    except Exception:  # noqa: BLE001 - a half-built module must not break decoding
        return None
    for name in ENTRY_POINTS:
        fit = getattr(module, name, None)
        fit = getattr(fit, "fit", fit)  # a model class with a ``fit`` classmethod
        if callable(fit):
            return lambda sentences, order, fit=fit: fit(sentences, order)
    return None
