"""The trained recurrent models and clipping-lab logs the RNN and gradients pages read — shipped for
the built-in corpora, trained in the background (``server.jobs``) for anything else, never in a script run.

``trained_models`` returns what is ready (this browser's models, else the shipped ones) and, for what
is missing, submits one background run the first time (later the page offers a button instead, so a
failed or stopped run is not restarted in a loop). ``clip_logs`` does the same for the clipping lab.
"""
from __future__ import annotations

import threading
import weakref
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
from lmcore.training.registry import model_nbytes
from server.jobs import job_status, my_jobs, submit
from server.models import corpus_tag, data_store, session_models
from server.scheduler import Job, JobContext
from ui.state import tr
from server.training import start_lm_training

RNN = TrainConfig(cell="rnn")  # the RNN the LSTM page trains and compares (shipped for the samples)
LSTM = TrainConfig()
JOB_KIND = "rnn"
CLIP_KIND = "clip"
CLIP_SECONDS = 20.0  # a first guess for the queue's ETA: two runs of 200 SGD steps on a small network

_derived_lock = threading.Lock()
_derived: weakref.WeakKeyDictionary[NeuralLM, dict[str, Any]] = weakref.WeakKeyDictionary()


def derived(lm: NeuralLM, name: str, build: Callable[[], Any]) -> Any:
    """A value computed once per model object (e.g. its white-box copy), dropped with the model."""
    with _derived_lock:
        found = _derived.setdefault(lm, {})
        if name in found:
            return found[name]
    value = build()
    with _derived_lock:
        return _derived[lm].setdefault(name, value)


def white_box_of(lm: NeuralLM) -> WhiteBoxLM:
    return derived(lm, "white_box", lambda: white_box(lm))


def untrained(corpus: Corpus, config: TrainConfig = RNN) -> NeuralLM:
    """The network ``config`` describes before training (seeded): the pages' "random" model."""
    train, itos = corpus.mapped("train"), list(corpus.vocab.itos)
    return data_store().get_or_build(("untrained", corpus.key, config.key()),
                                     lambda: untrained_lm(train, itos, config, corpus.key), model_nbytes,
                                     corpus_tag(corpus))


def _progress_text(job: Job) -> str:
    p = job.status
    valid = "–" if p.valid_token_ppl is None else f"{p.valid_token_ppl:.1f}"
    return tr("lstm.train.progress", step=p.step, total=p.total_steps, train=p.train_ppl, valid=valid,
              seconds=p.elapsed)


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
    job = job_status(JOB_KIND, describe=_progress_text)
    if job is None or not job.active:
        st.info(tr("recurrent.train_missing", cells=", ".join(c.cell.upper() for c in missing)))
        if st.button(tr("recurrent.train_button"), key=f"train_{'_'.join(c.cell for c in missing)}"):
            start_lm_training(corpus, missing, kind=JOB_KIND)
            st.rerun()
    else:
        st.info(tr("jobs.waiting_model"))
    return found


def clip_logs(corpus: Corpus, settings: ClipRunSettings) -> dict[str, TrainingLog] | None:
    """The clipping lab's two logs: shipped, computed before (by any browser: same text and settings,
    same numbers), or None while a background run computes them (its status is shown here)."""
    logs = shipped_logs(corpus.key, settings)
    if logs is not None:
        return logs
    key = ("clip", corpus.key, settings)
    logs = data_store().get(key)
    if logs is not None:
        return logs
    train, itos = corpus.mapped("train"), list(corpus.vocab.itos)
    params = {"corpus_key": corpus.key, "settings": asdict(settings)}

    def run(ctx: JobContext) -> dict[str, TrainingLog] | None:
        result = clipping_experiment(train, itos, settings, report=ctx.report)
        if ctx.should_stop():  # stopped or out of time: a partial run is not the experiment
            return None
        data_store().put(key, result, sum(3 * log.loss.nbytes for log in result.values()), corpus_tag(corpus))
        return result

    if not _tried(CLIP_KIND, **params):
        submit(CLIP_KIND, run, CLIP_SECONDS, automatic=True, **params)
    job = job_status(CLIP_KIND)
    if job is not None and job.active:
        st.info(tr("recurrent.clip_waiting"))
        return None
    if job is not None and job.params == params and job.result is not None:
        return job.result  # evicted from the shared store meanwhile: this browser still holds it
    st.info(tr("recurrent.clip_missing"))
    if st.button(tr("recurrent.clip_button"), key="clip_run_start"):
        submit(CLIP_KIND, run, CLIP_SECONDS, **params)
        st.rerun()
    return None
