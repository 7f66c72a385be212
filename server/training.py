"""Training runs started from a page: queued on the process-wide scheduler, results to their owner.

A page never trains in its own script run: it calls one of these, which submits a job and returns
at once; ``server.jobs.job_status`` shows the queue and the progress; the finished model goes into the
owner's store (``server.models.session_models``) even if the page was left or reloaded meanwhile.
"""
from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from lmcore.corpus import Corpus
from lmcore.seq2seq.evaluation import evaluate_by_length
from lmcore.seq2seq.model import Seq2SeqConfig
from lmcore.seq2seq.training import Seq2SeqRecipe
from lmcore.seq2seq.training import train as train_seq2seq
from lmcore.training.config import TrainConfig
from lmcore.training.loop import train_sentences
from lmcore.training.progress import Progress
from server.jobs import owner_id, submit
from server.memory import SizedStore
from server.models import data_store, model_registry
from server.scheduler import Job, JobContext

SECONDS_PER_STEP = 0.03  # an LSTM step of the default size on one thread, measured with some margin


def estimate_seconds(configs: Sequence[TrainConfig]) -> float:
    """A first guess of a run's length from its steps and size (the queue's ETA uses it)."""
    return sum(c.steps * SECONDS_PER_STEP * max(c.hidden_size / 128, 0.25) for c in configs)


def start_lm_training(corpus: Corpus, configs: Sequence[TrainConfig], kind: str = "lstm",
                      automatic: bool = False) -> Job | None:
    """Queue training of ``configs`` (one after the other) on the corpus, for this browser
    (``automatic``: started by the page, not by a click; a click replaces it).

    The job's status is the latest :class:`Progress` with ``.params["model"]`` naming the config
    being trained; every finished model is stored for the owner at once."""
    owner, registry = owner_id(), model_registry()
    train, valid, itos = corpus.mapped("train"), corpus.mapped("valid"), list(corpus.vocab.itos)
    configs = list(configs)

    def run(ctx: JobContext) -> list:
        done = []
        for n, config in enumerate(configs):
            def on_progress(p: Progress, n: int = n) -> str | None:
                return "stop" if ctx.report((n + p.fraction) / len(configs), p) else None

            lm = train_sentences(train, valid, itos, config, on_progress, corpus.key)
            registry.put(owner, lm)
            done.append(lm)
            if ctx.should_stop():
                break
        return done

    return submit(kind, run, estimate_seconds(configs), automatic=automatic, corpus_key=corpus.key,
                  configs=[c.key() for c in configs])


def start_default_training(corpus: Corpus, config: TrainConfig, kind: str = "lstm") -> Job | None:
    """Queue ``config`` on a corpus that has no model yet, once per session and corpus (a run the
    user stopped is not started again). Returns the new job, or None when nothing was queued."""
    asked = st.session_state.setdefault("default_runs", set())
    if (corpus.key, config.key()) in asked:
        return None
    asked.add((corpus.key, config.key()))
    return start_lm_training(corpus, [config], kind=kind, automatic=True)


def seq2seq_store() -> SizedStore:
    """Encoder-decoders trained in the app: (owner, task, attention) → (model, recipe, bottleneck curve)."""
    return data_store()


def start_seq2seq_training(task: str, variant: str, recipe: Seq2SeqRecipe, eval_n: int = 200) -> Job | None:
    """Queue an encoder-decoder run for this browser: train, then measure its bottleneck curve
    (``evaluate_by_length`` on ``eval_n`` held-out sources per length), so the page only reads it.
    The model goes to its owner's store."""
    owner = owner_id()
    lengths = range(recipe.min_len, recipe.max_len + 1)

    def run(ctx: JobContext):
        model = train_seq2seq(Seq2SeqConfig(variant), recipe,
                              lambda p: "stop" if ctx.report(0.9 * p.fraction, p) else None)
        results = evaluate_by_length(model, task, lengths, eval_n)
        size = sum(t.numel() * t.element_size() for t in model.parameters())
        seq2seq_store().put((owner, task, variant), (model, recipe, results), size)
        return model

    return submit("seq2seq", run, recipe.steps * 0.02 + 0.2 * len(lengths), task=task, variant=variant)
