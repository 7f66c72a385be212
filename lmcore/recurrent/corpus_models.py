"""Small recurrent LMs on a corpus's training sentences, ready for the explicit cells.

One place that fixes the sizes the pages use, so the RNN page, the connectivity view and the
clipping lab describe the same kind of model: vocabulary ≤ ``MAX_VOCAB`` most frequent words,
embedding ``EMB``, hidden ``HIDDEN``, tanh RNN (or LSTM/GRU), SGD with norm clipping.
"""
from __future__ import annotations

from dataclasses import dataclass

from lmcore.recurrent.clip_run import TrainingLog, clipping_experiment, to_language_model, token_stream, train_run
from lmcore.recurrent.rnn_lm import RNNLanguageModel, build_vocabulary, random_language_model
from lmcore.recurrent.weights import CellSpec

MAX_VOCAB = 2000
EMB = 16
HIDDEN = 32
MIN_TOKENS = 50


@dataclass(frozen=True)
class ClipRunSettings:
    """The clipping lab's run: an RNN whose W_h starts at σ1 = ``init_sigma1`` (explodes easily)."""

    steps: int = 200
    batch: int = 16
    seq_len: int = 20
    lr: float = 5.0
    threshold: float = 1.0
    init_sigma1: float = 1.5
    seed: int = 0


def enough_text(sentences: list[list[str]]) -> bool:
    """True when the sentences hold at least ``MIN_TOKENS`` tokens (training makes sense)."""
    return sum(len(s) + 1 for s in sentences) >= MIN_TOKENS


def random_corpus_lm(sentences: list[list[str]], cell: str = "rnn", seed: int = 0) -> RNNLanguageModel:
    """An untrained LM on the corpus vocabulary (σ1 = 1 orthogonal W_h, tanh)."""
    itos = build_vocabulary(sentences, MAX_VOCAB)
    return random_language_model(itos, CellSpec(cell, HIDDEN, EMB, "orthogonal", 1.0, "tanh"), seed)


def trained_corpus_lm(sentences: list[list[str]], cell: str = "rnn", steps: int = 300,
                      lr: float = 3.0, threshold: float = 1.0, seed: int = 0) -> tuple[RNNLanguageModel, TrainingLog]:
    """Train briefly (SGD, clipped) with torch.nn modules, then convert to explicit float64 cells."""
    itos = build_vocabulary(sentences, MAX_VOCAB)
    stream = token_stream(sentences, itos)
    seq_len = max(2, min(20, len(stream) - 2))
    model, log = train_run(stream, len(itos), cell=cell, emb=EMB, hidden=HIDDEN, steps=steps, batch=16,
                           seq_len=seq_len, lr=lr, threshold=threshold, seed=seed)
    return to_language_model(model, itos), log


def corpus_clip_experiment(sentences: list[list[str]], settings: ClipRunSettings) -> dict[str, TrainingLog]:
    """The clipping lab's pair of runs on the corpus (same seed, same batches)."""
    itos = build_vocabulary(sentences, MAX_VOCAB)
    stream = token_stream(sentences, itos)
    seq_len = max(2, min(settings.seq_len, len(stream) - 2))
    return clipping_experiment(stream, len(itos), settings.threshold, emb=EMB, hidden=HIDDEN,
                               steps=settings.steps, batch=settings.batch, seq_len=seq_len, lr=settings.lr,
                               init_sigma1=settings.init_sigma1, seed=settings.seed)
