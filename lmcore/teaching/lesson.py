"""What a lesson's questions are made of: the live inputs of the questions and the questions of each
topic (each page's parts, slides and topics: lmcore/teaching/course.py)."""
from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Sequence

from lmcore.ngram import NgramCounts
from lmcore.teaching.decoding_questions import decoding_questions
from lmcore.teaching.gradient_questions import gradient_questions
from lmcore.teaching.ngram_questions import ngram_questions
from lmcore.teaching.perplexity_questions import perplexity_questions
from lmcore.teaching.question import Question

TOPICS: tuple[str, ...] = ("perplexity", "ngram", "gradients", "decoding")


@dataclass(frozen=True)
class LessonInputs:
    """The corpus and settings questions are drawn from (n-gram counts, held-out sentences, page settings)."""

    counts: NgramCounts | None = None
    held_out: Sequence[Sequence[str]] = field(default_factory=list)
    corpus: str = ""
    order: int = 2
    delta: float = 1.0
    discount: float = 0.75
    hidden: int = 32
    input_scale: float = 1.0

    def settings(self) -> dict[str, object]:
        """The settings that change the questions (printed on sheets, put in file names)."""
        return {"n": self.order, "delta": self.delta, "d": self.discount}


def topic_questions(topic: str, inputs: LessonInputs, seed: int) -> list[Question]:
    """The questions of one topic for these inputs and seed (corpus topics need ``inputs.counts``)."""
    if topic == "ngram":  # bigram questions: need bigram counts
        ok = inputs.counts is not None and inputs.counts.max_order >= 2
        return ngram_questions(inputs.counts, inputs.delta, inputs.discount, seed) if ok else []
    if topic == "perplexity":
        return perplexity_questions(inputs.counts, inputs.held_out, inputs.order, seed) if inputs.counts else []
    if topic == "gradients":
        return gradient_questions(seed, inputs.hidden, inputs.input_scale)
    if topic == "decoding":
        return decoding_questions(seed)
    raise ValueError(f"unknown topic {topic!r}; expected one of {TOPICS}")

