"""The corpus pipeline: bytes → text → sentences → tokens → train/valid/test split and vocabulary.

>>> from lmcore.corpus import build_corpus, CorpusSettings
>>> corpus = build_corpus("The cat sat. The dog ran! A bird sang.", "demo")
>>> corpus.train, len(corpus.vocab)  # doctest: +SKIP
"""
from lmcore.corpus.build import Corpus, CorpusSettings, build_corpus, detect_language, split_indices
from lmcore.corpus.bytes_to_text import ENCODINGS, MAX_BYTES, clean_text, decode_bytes
from lmcore.corpus.errors import CorpusError
from lmcore.corpus.segmentation import SENTENCE_MODES, TOKENIZERS, split_sentences, tokenize
from lmcore.corpus.vocabulary import BOS, EOS, UNK, Vocabulary

__all__ = [
    "BOS", "EOS", "ENCODINGS", "MAX_BYTES", "SENTENCE_MODES", "TOKENIZERS", "UNK", "Corpus",
    "CorpusError", "CorpusSettings", "Vocabulary", "build_corpus", "clean_text", "decode_bytes",
    "detect_language", "split_indices", "split_sentences", "tokenize",
]
