"""How many bytes a stored value holds: the one size estimator the stores use (``server.store``).

Estimates, not measurements: NumPy arrays and torch tensors count their buffers; lists of token
lists count the lists and their pointers (the token strings are shared with the vocabulary); any
other object counts what these reach through its attributes, lists and dicts, a few levels deep.
"""
from __future__ import annotations

import sys

import numpy as np

from lmcore.corpus import Corpus

OBJECT_OVERHEAD = 4096  # an item's own bookkeeping: small objects, dicts, the store's entry


def token_lists_nbytes(sentences: list[list[str]]) -> int:
    """Bytes of a list of token lists (the lists and their pointers; token strings are shared)."""
    return sys.getsizeof(sentences) + sum(56 + 8 * len(s) for s in sentences)


def _corpus_nbytes(corpus: Corpus) -> int:
    """A built corpus: its text, its token lists (raw and unk-mapped), its types."""
    lists = token_lists_nbytes(corpus.sentences) * 2 + 3 * sys.getsizeof([]) * 2
    counts = getattr(corpus.vocab, "counts", None)
    types = sum(49 + len(w) for w in counts) if counts is not None else 0
    return sys.getsizeof(corpus.text) + lists + 2 * types


def _reached_nbytes(obj: object, depth: int) -> int:
    if isinstance(obj, np.ndarray):
        return int(obj.nbytes)
    torch = sys.modules.get("torch")  # no tensor exists before torch is imported
    if torch is not None:
        if isinstance(obj, torch.Tensor):
            return obj.numel() * obj.element_size()
        if isinstance(obj, torch.nn.Module):
            return sum(t.numel() * t.element_size() for t in (*obj.parameters(), *obj.buffers()))
    if isinstance(obj, (str, bytes)):
        return len(obj)
    if depth == 0 or isinstance(obj, (int, float, bool, type(None))):
        return 0
    if isinstance(obj, Corpus):
        return _corpus_nbytes(obj)
    nbytes = getattr(obj, "nbytes", None)
    if isinstance(nbytes, (int, np.integer)) and not isinstance(nbytes, bool):
        return int(nbytes)
    if isinstance(obj, dict):
        children = list(obj.values())
    elif isinstance(obj, (list, tuple)):
        if obj and all(isinstance(s, list) for s in obj[:16]):
            return token_lists_nbytes(obj)  # type: ignore[arg-type]
        children = list(obj)
    else:
        children = list(getattr(obj, "__dict__", {}).values())
    return sum(_reached_nbytes(child, depth - 1) for child in children)


def nbytes(obj: object, depth: int = 4) -> int:
    """The bytes ``obj`` holds (see the module's docstring), plus :data:`OBJECT_OVERHEAD`."""
    return _reached_nbytes(obj, depth) + OBJECT_OVERHEAD
