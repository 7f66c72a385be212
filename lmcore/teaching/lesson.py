"""What a lesson's questions are made of: the live inputs of the questions and the questions of each
topic (each page's parts, slides and topics: lmcore/teaching/course.py)."""
from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Sequence

from lmcore.corpus import Corpus
from lmcore.ngram import NgramCounts
from lmcore.teaching.corpus_questions import corpus_questions
from lmcore.teaching.decoding_questions import decoding_questions
from lmcore.teaching.gradient_questions import gradient_questions
from lmcore.teaching.lstm_questions import lstm_questions
from lmcore.teaching.ngram_questions import ngram_questions
from lmcore.teaching.perplexity_questions import perplexity_questions
from lmcore.teaching.question import Question
from lmcore.teaching.rnn_questions import rnn_questions
from lmcore.teaching.seq2seq_questions import seq2seq_questions
from lmcore.training.neural_lm import NeuralLM

TOPICS: tuple[str, ...] = ("perplexity", "ngram", "gradients", "decoding", "corpus", "rnn_bptt", "lstm", "seq2seq")


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
    source_corpus: Corpus | None = None  # the Corpus object (splits, vocabulary): the corpus topic
    rnn: NeuralLM | None = None  # the word-level RNN LM the RNN & BPTT page shows (questions on held_out)
    lstm: NeuralLM | None = None  # the word-level LSTM LM the LSTM page inspects (passages from source_corpus)
    seq2seq_task: str | None = None  # the seq2seq page's task (questions on its shipped models; None: no questions)

    def settings(self) -> dict[str, object]:
        """The settings that change the questions (printed on sheets, put in file names)."""
        return {"n": self.order, "delta": self.delta, "d": self.discount}

    def key(self) -> tuple[tuple[str, object], ...]:
        """Plain values that, with the corpus's own key, decide the questions (a cache key): the
        settings as they are, each model as its corpus, configuration, training steps and object id;
        the counts, sentences and Corpus object are left out (the corpus key names them)."""
        out = []
        for name, value in sorted(vars(self).items()):
            if name in ("counts", "held_out", "source_corpus"):
                continue
            if isinstance(value, NeuralLM):
                value = value.key()
            out.append((name, value))
        return tuple(out)


def topic_questions(topic: str, inputs: LessonInputs, seed: int) -> list[Question]:
    """The questions of one topic for these inputs and seed. N-gram topics need ``inputs.counts``, the
    corpus topic ``inputs.source_corpus``, rnn_bptt ``inputs.rnn``, lstm ``inputs.lstm`` and seq2seq
    ``inputs.seq2seq_task``; without them a topic has no questions (gradients and decoding need nothing)."""
    if topic == "ngram":  # bigram questions: need bigram counts
        ok = inputs.counts is not None and inputs.counts.max_order >= 2
        return ngram_questions(inputs.counts, inputs.delta, inputs.discount, seed) if ok else []
    if topic == "perplexity":
        return perplexity_questions(inputs.counts, inputs.held_out, inputs.order, seed) if inputs.counts else []
    if topic == "gradients":
        return gradient_questions(seed, inputs.hidden, inputs.input_scale)
    if topic == "decoding":
        return decoding_questions(seed)
    if topic == "corpus":
        return corpus_questions(inputs.source_corpus, seed) if inputs.source_corpus is not None else []
    if topic == "rnn_bptt":
        return rnn_questions(inputs.rnn, inputs.held_out, seed)
    if topic == "lstm":
        return lstm_questions(inputs.lstm, inputs.source_corpus, inputs.held_out, seed)
    if topic == "seq2seq":
        return seq2seq_questions(inputs.seq2seq_task, seed) if inputs.seq2seq_task else []
    raise ValueError(f"unknown topic {topic!r}; expected one of {TOPICS}")
