"""How corpora and what is made from them are named in the data store (``server.stores``).

A corpus is stored under :func:`corpus_key` (its source, settings, synthetic size and upload digest:
the sidebar finds it before building it; the warm-up stores the samples under the same key). Every
item made from a corpus other than a built-in default carries :func:`corpus_tag` (and the corpus
itself :func:`built_tag`), so all of it can be dropped at once when no session shows it
(``server.corpus_use``).
"""
from __future__ import annotations

from lmcore.corpus import Corpus, CorpusSettings
from lmcore.samples import DEFAULT_SYNTHETIC_SENTENCES
from server.store import store_key


def corpus_key(source: str, settings: CorpusSettings, n_synthetic: int = DEFAULT_SYNTHETIC_SENTENCES,
               digest: str = "") -> str:
    """The data store's key of a corpus: its source, settings, synthetic size and upload digest."""
    return store_key("corpus", source, settings, n_synthetic if source == "synthetic" else 0, digest)


def built_tag(key: str) -> str:
    """The tag of a corpus stored under ``key`` (an upload's bytes are in the key by their digest)."""
    return "built:" + key


def corpus_tag(corpus: Corpus | str) -> str:
    """What every stored item made from this corpus (its text and settings; or its ``Corpus.key``)
    is tagged with."""
    return "corpus:" + (corpus if isinstance(corpus, str) else corpus.key)
