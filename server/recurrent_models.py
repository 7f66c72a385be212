"""What the RNN and gradients pages read of recurrent models, served from the stores: the untrained
network, the clipping lab's runs (a registered job runner), and values computed from a model.

The pages ask through ``ui.recurrent_models`` (what is ready, and a run for what is missing). Values
computed from a model (its white-box copy, its perplexity) are kept in the data store under
the model's content (:func:`model_digest`), not its object: the same weights give the same key in
any process, and a model loaded again finds them.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lmcore.corpus import Corpus
from lmcore.digest import weights_digest
from lmcore.recurrent.clip_run import ClipRunSettings, TrainingLog, clipping_experiment
from lmcore.recurrent.rnn_lm import WhiteBoxLM, white_box
from lmcore.training.config import TrainConfig
from lmcore.training.loop import untrained_lm
from lmcore.training.neural_lm import NeuralLM
from server.corpus_keys import corpus_tag
from server.scheduler import JobContext, register_runner
from server.sizes import nbytes
from server.store import store_key
from server.stores import data_store
from server.training import training_input

RNN = TrainConfig(cell="rnn")  # the RNN the LSTM page trains and compares (shipped for the samples)
LSTM = TrainConfig()
JOB_KIND = "rnn"
CLIP_KIND = "clip"
CLIP_SECONDS = 20.0  # a first guess for the queue's ETA: two runs of 200 SGD steps on a small network


def model_digest(lm: NeuralLM) -> str:
    """A key of the model's content: its corpus, settings and weights (:func:`lmcore.digest.weights_digest`)."""
    return weights_digest(lm, lm.model, f"{lm.corpus_key}|{lm.config.key()}|{lm.selected_step}")


def derived(lm: NeuralLM, name: str, build: Callable[[], Any]) -> Any:
    """A value computed once per model content (e.g. its white-box copy), kept in the data store."""
    return data_store().get_or_build(store_key("derived", model_digest(lm), name), build, nbytes,
                                     [corpus_tag(lm.corpus_key)])


def white_box_of(lm: NeuralLM) -> WhiteBoxLM:
    return derived(lm, "white_box", lambda: white_box(lm))


def untrained(corpus: Corpus, config: TrainConfig = RNN) -> NeuralLM:
    """The network ``config`` describes before training (seeded): the pages' "random" model."""
    train, itos = corpus.mapped("train"), list(corpus.vocab.itos)
    return data_store().get_or_build(store_key("untrained", corpus.key, config.key()),
                                     lambda: untrained_lm(train, itos, config, corpus.key), nbytes,
                                     [corpus_tag(corpus)])


def clip_key(corpus_key: str, settings: ClipRunSettings) -> str:
    return store_key("clip", corpus_key, settings)


def run_clip_experiment(ctx: JobContext) -> dict[str, TrainingLog] | None:
    """The clipping lab's two runs on ``params["corpus_key"]`` with ``params["settings"]``, kept in the
    data store for every browser (same text and settings, same numbers); None when stopped early."""
    corpus_key, settings = ctx.params["corpus_key"], ClipRunSettings(**ctx.params["settings"])
    data = training_input(corpus_key)
    result = clipping_experiment(data["train"], data["itos"], settings, report=ctx.report)
    if ctx.should_stop():  # stopped or out of time: a partial run is not the experiment
        return None
    data_store().put(clip_key(corpus_key, settings), result, nbytes(result), [corpus_tag(corpus_key)])
    return result


register_runner(CLIP_KIND, run_clip_experiment)
