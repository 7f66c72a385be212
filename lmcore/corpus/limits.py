"""Bounds on an uploaded text, applied while it is tokenised, before any array is built from it.

One server holds a whole class, so one hostile or huge file must not exhaust it: a token longer
than ``max_token_chars`` is cut to that length, a sentence longer than ``max_sentence_tokens`` is
split into pieces of that length, reading stops after the sentence that reaches ``max_tokens`` tokens, and a
text with more than ``max_types`` distinct tokens is refused. What was changed is recorded so the
Corpus page can say it.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from lmcore.corpus.errors import CorpusError


@dataclass(frozen=True)
class CorpusLimits:
    max_token_chars: int = 40
    max_sentence_tokens: int = 200
    max_tokens: int = 2_000_000
    max_types: int = 200_000


APP_LIMITS = CorpusLimits()


@dataclass
class Bounder:
    """Applies ``limits`` sentence by sentence; ``applied`` counts what it changed."""

    limits: CorpusLimits
    applied: dict[str, int] = field(default_factory=lambda: {"long_tokens": 0, "long_sentences": 0, "dropped_sentences": 0})
    n_tokens: int = 0
    _types: dict[str, str] = field(default_factory=dict)

    @property
    def full(self) -> bool:
        return self.n_tokens >= self.limits.max_tokens

    def sentences(self, tokens: list[str]) -> list[list[str]]:
        """The sentence as one or more bounded sentences (empty once ``max_tokens`` is reached).

        Equal tokens become one shared string object, so a large text holds each type once."""
        limits = self.limits
        bounded = []
        for token in tokens:
            if len(token) > limits.max_token_chars:
                token = token[: limits.max_token_chars]
                self.applied["long_tokens"] += 1
            shared = self._types.setdefault(token, token)
            if len(self._types) > limits.max_types:
                raise CorpusError("error.too_many_types", limit=limits.max_types)
            bounded.append(shared)
        self.n_tokens += len(bounded)
        step = limits.max_sentence_tokens
        if len(bounded) > step:
            self.applied["long_sentences"] += 1
        return [bounded[i: i + step] for i in range(0, len(bounded), step)]
