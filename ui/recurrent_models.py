"""The recurrent models and clipping-lab logs the RNN and gradients pages show — shipped for the
built-in corpora, trained in the background (``server.training``, ``server.recurrent_models``) for
anything else, never in a script run.

``trained_models`` returns what is ready (this browser's models, else the shipped ones) and, for what
is missing, submits one background run the first time (later the page offers a button instead, so a
failed or stopped run is not restarted in a loop). ``clip_logs`` does the same for the clipping lab.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

import streamlit as st

from lmcore.corpus import Corpus
from lmcore.recurrent.clip_lab import shipped_logs
from lmcore.recurrent.clip_run import ClipRunSettings, TrainingLog
from lmcore.training.config import TrainConfig, enough_to_train
from lmcore.training.neural_lm import NeuralLM
from server.jobs import my_jobs, submit
from server.models import session_models
from server.recurrent_models import CLIP_KIND, CLIP_SECONDS, JOB_KIND, clip_key
from server.scheduler import JobSpec
from server.stores import data_store
from server.training import keep_training_input, start_lm_training
from ui.job_status import job_status, training_progress_text
from ui.state import tr


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
