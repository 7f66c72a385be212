"""Training runs started from a page: queued on the process-wide scheduler, results to their owner.

A page never trains in its own script run: it calls one of these, which submits a job spec and
returns at once; ``ui.job_status`` shows the queue and the progress; the finished model goes into the
owner's part of the model store (``server.models.session_models``) even if the page was left or
reloaded meanwhile. The runners are registered here (``server.scheduler.register_runner``): a spec's
parameters are plain data, and a runner reads the corpus's token lists from the data store
(:func:`keep_training_input`), so the same specs can go to a queue served by other processes.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

import streamlit as st

from lmcore.corpus import Corpus
from lmcore.seq2seq.evaluation import evaluate_by_length
from lmcore.seq2seq.model import Seq2SeqConfig
from lmcore.seq2seq.training import Seq2SeqRecipe
from lmcore.seq2seq.training import train as train_seq2seq
from lmcore.training.config import TrainConfig
from lmcore.training.loop import train_sentences
from lmcore.training.progress import Progress
from server.corpus_keys import corpus_tag
from server.jobs import submit
from server.models import shipped_models
from server.owner_models import OwnerModels, owner_tag
from server.scheduler import Job, JobContext, JobSpec, RunCannotGoOn, register_runner
from server.sizes import OBJECT_OVERHEAD, nbytes
from server.store import store_key
from server.shared_store import inputs_store
from server.stores import data_store, model_store

SECONDS_PER_STEP = 0.03  # an LSTM step of the default size on one thread, measured with some margin
LM_KINDS = ("lstm", "rnn")  # the LSTM page's runs, the RNN pages' runs: one runner, kept apart per page
SEQ2SEQ_KIND = "seq2seq"


class InputGone(RunCannotGoOn):
    """The corpus a queued run was to train on is no longer in memory."""

    def __init__(self) -> None:
        super().__init__("the corpus of this run is no longer in memory: choose it again and train")


def estimate_seconds(configs: Sequence[TrainConfig]) -> float:
    """A first guess of a run's length from its steps and size (the queue's ETA uses it)."""
    return sum(c.steps * SECONDS_PER_STEP * max(c.hidden_size / 128, 0.25) for c in configs)


def _input_store():
    """The data store, or Redis when runs go to workers on other machines (``server.shared_store``)."""
    shared = inputs_store()
    return data_store() if shared is None else shared


def _input_key(corpus_key: str) -> str:
    return store_key("training-input", corpus_key)


def keep_training_input(corpus: Corpus) -> None:
    """Keep what a run on ``corpus`` reads (its unk-mapped training and validation sentences and its
    vocabulary) in the data store, with the corpus's tag. In this process it is the corpus's own
    lists (nothing is copied, hence the nominal size); a serialising back end stores them as bytes."""
    data = {"train": corpus.mapped("train"), "valid": corpus.mapped("valid"), "itos": list(corpus.vocab.itos)}
    _input_store().put(_input_key(corpus.key), data, OBJECT_OVERHEAD, [corpus_tag(corpus)])


def training_input(corpus_key: str) -> dict[str, Any]:
    """What :func:`keep_training_input` kept for the corpus; :class:`InputGone` when it was dropped."""
    found = _input_store().get(_input_key(corpus_key))
    if found is None:
        raise InputGone()
    return found


def run_lm_training(ctx: JobContext) -> list:
    """Train ``params["settings"]`` (TrainConfig dicts) one after the other on ``params["corpus_key"]``;
    every finished model goes to the owner's models at once. The job's status is the latest
    :class:`Progress`."""
    corpus_key = ctx.params["corpus_key"]
    data = training_input(corpus_key)
    configs = [TrainConfig.from_dict(d) for d in ctx.params["settings"]]
    models = OwnerModels(model_store(), shipped_models(), ctx.owner)
    done = []
    for n, config in enumerate(configs):
        def on_progress(p: Progress, n: int = n) -> str | None:
            return "stop" if ctx.report((n + p.fraction) / len(configs), p) else None

        lm = train_sentences(data["train"], data["valid"], data["itos"], config, on_progress, corpus_key)
        models.put(lm)
        done.append(lm)
        if ctx.should_stop():
            break
    return done


def start_lm_training(corpus: Corpus, configs: Sequence[TrainConfig], kind: str = "lstm",
                      automatic: bool = False) -> Job | None:
    """Queue training of ``configs`` (one after the other) on the corpus, for this browser
    (``automatic``: started by the page, not by a click; a click replaces it)."""
    configs = list(configs)
    keep_training_input(corpus)
    spec = JobSpec(kind, {"corpus_key": corpus.key, "configs": [c.key() for c in configs],
                          "settings": [c.to_dict() for c in configs]})
    return submit(spec, estimate_seconds(configs), automatic=automatic)


def start_default_training(corpus: Corpus, config: TrainConfig, kind: str = "lstm") -> Job | None:
    """Queue ``config`` on a corpus that has no model yet, once per session and corpus (a run the
    user stopped is not started again). Returns the new job, or None when nothing was queued."""
    asked = st.session_state.setdefault("default_runs", set())
    if (corpus.key, config.key()) in asked:
        return None
    asked.add((corpus.key, config.key()))
    return start_lm_training(corpus, [config], kind=kind, automatic=True)


def seq2seq_key(owner: str, task: str, variant: str) -> str:
    """The model store's key of an owner's encoder-decoder: (model, recipe, bottleneck curve)."""
    return store_key("seq2seq", owner, task, variant)


def trained_seq2seq(owner: str, task: str, variant: str) -> tuple | None:
    """The owner's encoder-decoder of this task and attention: (model, recipe, curve), or None."""
    return model_store().get(seq2seq_key(owner, task, variant))


def run_seq2seq_training(ctx: JobContext) -> Any:
    """Train an encoder-decoder, then measure its bottleneck curve (``evaluate_by_length`` on ``eval_n``
    held-out sources per length), so the page only reads it; kept in the owner's models."""
    task, variant, eval_n = ctx.params["task"], ctx.params["variant"], ctx.params["eval_n"]
    recipe = Seq2SeqRecipe(**ctx.params["recipe"])
    lengths = range(recipe.min_len, recipe.max_len + 1)
    model = train_seq2seq(Seq2SeqConfig(variant), recipe, lambda p: "stop" if ctx.report(0.9 * p.fraction, p) else None)
    results = evaluate_by_length(model, task, lengths, eval_n)
    model_store().put(seq2seq_key(ctx.owner, task, variant), (model, recipe, results), nbytes(model),
                      tags=[owner_tag(ctx.owner), SEQ2SEQ_KIND])
    return model


def start_seq2seq_training(task: str, variant: str, recipe: Seq2SeqRecipe, eval_n: int = 200) -> Job | None:
    """Queue an encoder-decoder run for this browser (:func:`run_seq2seq_training`)."""
    spec = JobSpec(SEQ2SEQ_KIND, {"task": task, "variant": variant, "recipe": asdict(recipe), "eval_n": eval_n})
    lengths = recipe.max_len - recipe.min_len + 1
    return submit(spec, recipe.steps * 0.02 + 0.2 * lengths)


for _kind in LM_KINDS:
    register_runner(_kind, run_lm_training)
register_runner(SEQ2SEQ_KIND, run_seq2seq_training)
