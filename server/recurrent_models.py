"""The trained recurrent models and clipping-lab logs the RNN and gradients pages read — shipped for
the built-in corpora, trained in the background (``server.training``) for anything else, never in a script run.

``trained_models`` returns what is ready (this browser's models, else the shipped ones) and, for what
is missing, submits one background run the first time (later the page offers a button instead, so a
failed or stopped run is not restarted in a loop). ``clip_logs`` does the same for the clipping lab.
Values computed from a model (its white-box copy, its perplexity) are kept in the data store under
the model's content (:func:`model_digest`), not its object: the same weights give the same key in
any process, and a model loaded again finds them.
"""
from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import asdict
from typing import Any

import streamlit as st

from lmcore.corpus import Corpus
from lmcore.recurrent.clip_lab import shipped_logs
from lmcore.recurrent.clip_run import ClipRunSettings, TrainingLog, clipping_experiment
from lmcore.recurrent.rnn_lm import WhiteBoxLM, white_box
from lmcore.training.config import TrainConfig, enough_to_train
from lmcore.training.loop import untrained_lm
from lmcore.training.neural_lm import NeuralLM
from server.corpus_keys import corpus_tag
from server.jobs import my_jobs, submit
from server.models import session_models
from server.scheduler import JobContext, JobSpec, register_runner
from server.sizes import nbytes
from server.store import store_key
from server.stores import data_store
from server.training import keep_training_input, start_lm_training, training_input
from ui.job_status import job_status, training_progress_text
from ui.state import tr

RNN = TrainConfig(cell="rnn")  # the RNN the LSTM page trains and compares (shipped for the samples)
LSTM = TrainConfig()
JOB_KIND = "rnn"
CLIP_KIND = "clip"
CLIP_SECONDS = 20.0  # a first guess for the queue's ETA: two runs of 200 SGD steps on a small network



def model_digest(lm: NeuralLM) -> str:
    """A key of the model's content: its corpus, settings, and weights (the same in every process;
    ~1.5 ms for the default LSTM's 385,000 weights)."""
    digest = hashlib.blake2b(f"{lm.corpus_key}|{lm.config.key()}|{lm.selected_step}".encode(), digest_size=16)
    for name, tensor in lm.model.state_dict().items():
        digest.update(name.encode())
        digest.update(tensor.detach().contiguous().numpy().tobytes())
    return digest.hexdigest()


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


def _tried(kind: str, **params: Any) -> bool:
    """True when this browser already ran (or runs) a job of ``kind`` covering ``params``."""
    for job in my_jobs(kind):
        if all(_covers(job.params.get(k), v) for k, v in params.items()):
            return True
    return False


def _covers(have: Any, want: Any) -> bool:
    if isinstance(want, list) and isinstance(have, list):
        return set(want) <= set(have)
    return have == want


def trained_models(corpus: Corpus, configs: Sequence[TrainConfig]) -> dict[str, NeuralLM | None]:
    """``{cell: model or None}``: ready models now; missing ones trained in the background (first time
    automatically, then on request). Shows the run's status where it is called."""
    store = session_models()
    found = {c.cell: store.get(corpus.key, c) for c in configs}
    missing = [c for c in configs if found[c.cell] is None]
    if not missing:
        return found
    if not enough_to_train(corpus.mapped("train")):
        st.warning(tr("recurrent.too_small"))
        return found
    if not _tried(JOB_KIND, corpus_key=corpus.key, configs=[c.key() for c in missing]):
        start_lm_training(corpus, missing, kind=JOB_KIND, automatic=True)
    job = job_status(JOB_KIND, describe=training_progress_text)
    if job is None or not job.active:
        st.info(tr("recurrent.train_missing", cells=", ".join(c.cell.upper() for c in missing)))
        if st.button(tr("recurrent.train_button"), key=f"train_{'_'.join(c.cell for c in missing)}"):
            start_lm_training(corpus, missing, kind=JOB_KIND)
            st.rerun()
    else:
        st.info(tr("jobs.waiting_model"))
    return found


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


def clip_logs(corpus: Corpus, settings: ClipRunSettings) -> dict[str, TrainingLog] | None:
    """The clipping lab's two logs: shipped, computed before (by any browser: same text and settings,
    same numbers), or None while a background run computes them (its status is shown here)."""
    logs = shipped_logs(corpus.key, settings)
    if logs is not None:
        return logs
    logs = data_store().get(clip_key(corpus.key, settings))
    if logs is not None:
        return logs
    params = {"corpus_key": corpus.key, "settings": asdict(settings)}
    if not _tried(CLIP_KIND, **params):
        keep_training_input(corpus)
        submit(JobSpec(CLIP_KIND, params), CLIP_SECONDS, automatic=True)
    job = job_status(CLIP_KIND)
    if job is not None and job.active:
        st.info(tr("recurrent.clip_waiting"))
        return None
    if job is not None and job.params == params and job.result is not None:
        return job.result  # evicted from the shared store meanwhile: this browser still holds it
    st.info(tr("recurrent.clip_missing"))
    if st.button(tr("recurrent.clip_button"), key="clip_run_start"):
        keep_training_input(corpus)
        submit(JobSpec(CLIP_KIND, params), CLIP_SECONDS)
        st.rerun()
    return None


register_runner(CLIP_KIND, run_clip_experiment)
