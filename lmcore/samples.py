"""The built-in corpora: an English and a Chinese sample written for LM Lab, and the synthetic source."""
from __future__ import annotations

from pathlib import Path

from lmcore.corpus import Corpus, CorpusSettings, build_corpus
from lmcore.synthetic import synthetic_text

ASSETS = Path(__file__).resolve().parents[1] / "assets" / "corpora"
SAMPLES = ("english", "chinese", "synthetic")
DEFAULT_SYNTHETIC_SENTENCES = 3000


def sample_text(name: str) -> str:
    """The text of the English or Chinese sample (all parts, in order)."""
    if name not in ("english", "chinese"):
        raise ValueError(f"unknown sample {name!r}")
    parts = sorted((ASSETS / name).glob("*.txt"))
    return "\n\n".join(p.read_text(encoding="utf-8").strip() for p in parts) + "\n"


def default_settings(name: str) -> CorpusSettings:
    """Sidebar defaults for a sample: jieba words for Chinese, one sentence per line for synthetic."""
    if name == "chinese":
        return CorpusSettings(tokenizer="jieba", lowercase=False)
    if name == "synthetic":
        return CorpusSettings(tokenizer="words", lowercase=True, sentence_mode="lines")
    return CorpusSettings(tokenizer="words", lowercase=True)


def load_sample(
    name: str,
    settings: CorpusSettings | None = None,
    n_sentences: int = DEFAULT_SYNTHETIC_SENTENCES,
) -> Corpus:
    """Build a built-in corpus; the synthetic one carries its source's entropy rate."""
    settings = settings or default_settings(name)
    if name == "synthetic":
        text, entropy = synthetic_text(n_sentences)
        return build_corpus(text.encode("utf-8"), f"synthetic ({n_sentences})", settings, true_entropy=entropy)
    return build_corpus(sample_text(name).encode("utf-8"), name, settings)
