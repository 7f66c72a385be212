"""Sentence splitting (English and Chinese punctuation, or one sentence per line) and tokenisers."""
from __future__ import annotations

import logging
import re
from functools import lru_cache

from lmcore.corpus.vocabulary import UNK

SENTENCE_MODES = ("auto", "lines")
TOKENIZERS = ("words", "whitespace", "chars", "jieba")
SPACE = "␣"
"""Stands for a space in character tokenisation, so a character model sees word boundaries."""

# A sentence runs to . ! ? … followed by whitespace or the line's end, or to 。！？, taking closing
# quotes and brackets with it; a piece ending in a title abbreviation ("Mr.") joins the next.
_SENTENCE = re.compile(r"""\S.*?(?:[.!?…]+["'”’」』）)\]]*(?=\s|$)|[。！？]+["'”’」』）)\]]*|$)""")
_ABBREVIATION = re.compile(r"(?:^|\s)(?:Mr|Mrs|Ms|Dr|Prof|St|Mt|Jr|Sr|vs|etc|e\.g|i\.e)\.$", re.IGNORECASE)
_WORD = re.compile(
    r"[\u3400-\u9fff\uf900-\ufaff]"          # one CJK character per token
    r"|[^\W\d_]+(?:['’\-][^\W\d_]+)*"       # words, with inner apostrophes or hyphens
    r"|\d+(?:[.,:]\d+)*"                     # numbers: 3, 3.14, 1,000, 10:30
    r"|[^\w\s]"                              # any other symbol is its own token
)
_SPACES = re.compile(r"\s+")
MARKERS = re.compile(r"(<unk>|</s>|<s>)", re.IGNORECASE)
"""Symbols a prepared corpus (Penn Treebank, WikiText…) already writes in its text: the unknown
word and the sentence boundaries."""
_END = re.compile(r"</s>", re.IGNORECASE)
_BOUNDS = re.compile(r"</?s>", re.IGNORECASE)
_UNK = re.compile(r"(<unk>)", re.IGNORECASE)


def marker_counts(text: str) -> dict[str, int]:
    """How many literal ``<unk>``, ``<s>`` and ``</s>`` (any case) ``text`` holds."""
    found = {"<unk>": 0, "<s>": 0, "</s>": 0}
    for m in MARKERS.finditer(text):
        found[m.group(0).lower()] += 1
    return found


def split_sentences(text: str, mode: str = "auto") -> list[str]:
    """Split text into sentences.

    ``mode="lines"``: every non-empty line is a sentence (as KenLM reads its input).
    ``mode="auto"``: paragraphs (lines) are split after sentence-final punctuation of English
    (. ! ?) and Chinese (。！？), keeping closing quotes with their sentence.
    In both modes a literal ``</s>`` in the text ends a sentence.
    """
    lines = [piece.strip() for line in text.split("\n") for piece in _END.split(line)]
    if mode == "lines":
        return [line for line in lines if line]
    sentences: list[str] = []
    for line in lines:
        pending = ""
        for part in _SENTENCE.findall(line):
            pending = f"{pending} {part.strip()}".strip()
            if pending and not _ABBREVIATION.search(pending):
                sentences.append(pending)
                pending = ""
        if pending:
            sentences.append(pending)
    return sentences


@lru_cache(maxsize=1)
def _jieba():
    import jieba

    jieba.setLogLevel(logging.WARNING)
    jieba.initialize()
    return jieba


def tokenize(sentence: str, tokenizer: str = "words", lowercase: bool = False) -> list[str]:
    """Tokens of one sentence.

    - ``words``: an English-aware regular expression (words with inner apostrophes or hyphens,
      numbers, punctuation marks; each CJK character alone);
    - ``whitespace``: split on whitespace only (for text that is already tokenised, as KenLM reads it);
    - ``chars``: every character, runs of whitespace as one ``␣``;
    - ``jieba``: Chinese word segmentation (jieba), whitespace dropped.

    Whatever the tokenizer, a literal ``<unk>`` (any case) is one token, the model's own ``<unk>``,
    and a literal ``<s>`` or ``</s>`` is dropped (the models add their own sentence boundaries).
    """
    if lowercase:
        sentence = sentence.lower()
    marked = MARKERS.search(sentence) is not None
    if marked:  # <s> and </s> are dropped: every model adds its own sentence boundaries
        sentence = _BOUNDS.sub(" ", sentence)
    if tokenizer == "chars":
        sentence = _SPACES.sub(" ", sentence.strip())
    if not marked:
        return _split(sentence, tokenizer)
    tokens: list[str] = []
    for i, piece in enumerate(_UNK.split(sentence)):
        tokens += _split(piece, tokenizer) if i % 2 == 0 else [UNK]
    return tokens


def _split(sentence: str, tokenizer: str) -> list[str]:
    if tokenizer == "words":
        return _WORD.findall(sentence)
    if tokenizer == "whitespace":
        return sentence.split()
    if tokenizer == "chars":
        return [SPACE if c == " " else c for c in sentence]
    if tokenizer == "jieba":
        return [w for w in _jieba().lcut(sentence) if w.strip()]
    raise ValueError(f"unknown tokenizer {tokenizer!r}; choose one of {TOKENIZERS}")
