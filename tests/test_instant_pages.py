"""Pages open without training anything (issue 11): everything a page shows for a built-in corpus at
its default settings is shipped or computed at once, and a corpus without shipped models gets its
model from a background run, never from the page's own script run.

Training steps are counted where they happen: torch.optim's process-wide step hook sees every
optimizer step of any training loop, and the thread it runs on tells a script run from a job of the
scheduler (threads "lmlab-job-*"); the warm-up's single step (server/warmup.py), taken whenever the
process has been idle for a while (e.g. while a test waits for a job), is told apart too. The
training entry points are counted too, by name.
"""
from __future__ import annotations

import threading
from collections import Counter
from contextlib import contextmanager

import pytest
from torch.optim.optimizer import register_optimizer_step_pre_hook

from lmcore.samples import SAMPLES
from tests.apptest_helpers import each_part, errors, run_page
from ui.navigation import PARTS

MY_PAGES = ["home", "corpus", "chain_rule", "ngram", "lstm", "seq2seq", "decoding"]


@contextmanager
def training_steps(monkeypatch):
    """Counts optimizer steps by thread kind ("script" or "job") and calls of the training functions."""
    import lmcore.seq2seq.training as seq2seq_training
    import lmcore.training.loop as loop
    import server.training

    steps: Counter = Counter()

    def on_step(optimizer, args, kwargs):
        steps[thread_kind(threading.current_thread().name)] += 1

    def counted(name, fn):
        def wrapper(*args, **kwargs):
            steps[name] += 1
            return fn(*args, **kwargs)
        return wrapper

    for module, attr in [(loop, "train_sentences"), (server.training, "train_sentences"),
                         (seq2seq_training, "train"), (server.training, "train_seq2seq")]:
        monkeypatch.setattr(module, attr, counted(f"{module.__name__}.{attr}", getattr(module, attr)))
    handle = register_optimizer_step_pre_hook(on_step)
    try:
        yield steps
    finally:
        handle.remove()


def thread_kind(name: str) -> str:
    """"job" (the scheduler's threads), "warm-up" (server/warmup.py's one Adam step on a throw-away
    tensor, taken once the process has been idle a while: it trains nothing) or "script"."""
    if name.startswith("lmlab-job"):
        return "job"
    return "warm-up" if name == "lmlab-warm-up" else "script"


def _idle() -> None:
    from server.job_queue import scheduler

    assert scheduler().wait_idle(600), "training runs of an earlier test did not finish"


def assert_nothing_to_fetch(at, stem: str) -> None:
    """After a page's first run the browser fetches no image and no file: the share box's QR code is
    made only while its box is open, and every download is made on the click (Chromium fetched the
    QR image and a CSV ~2.3 s after the click: the page's last change)."""
    assert at.get("image") == [], stem
    buttons = [element.proto for element in at.get("download_button")]
    assert [(b.label, b.url) for b in buttons if b.url or not b.deferred_file_id] == [], stem


@pytest.mark.parametrize("corpus", list(SAMPLES))
def test_no_page_trains_when_it_first_opens_on_a_built_in_corpus(monkeypatch, corpus):
    """... and leaves the browser nothing to fetch (issue 11)."""
    _idle()
    with training_steps(monkeypatch) as steps:
        at = run_page("home", "en", query={"corpus": corpus})
        for stem in MY_PAGES[1:]:
            at.switch_page(f"app_pages/{stem}.py")
            at.run()
            assert not errors(at), (stem, errors(at))
            assert_nothing_to_fetch(at, stem)
            for part in each_part(at, stem) if stem in PARTS else ():  # and every part of it
                assert not errors(at), (stem, part, errors(at))
        _idle()  # a job submitted by a page would have trained by now
    assert sum(n for kind, n in steps.items() if kind != "warm-up") == 0, dict(steps)


def test_a_corpus_without_shipped_models_trains_in_a_background_run_only(monkeypatch):
    """The check above can fail: on a synthetic corpus of another size (no shipped model) the LSTM
    page queues the default model, and its steps run on a scheduler thread, not in the script run."""
    from server.job_queue import scheduler

    _idle()
    with training_steps(monkeypatch) as steps:
        at = run_page("lstm", "en", query={"corpus": "synthetic", "sents": "400"})
        assert not errors(at)
        assert steps["script"] == 0
        assert scheduler().wait_idle(600)
    assert steps["job"] > 0 and steps["script"] == 0
    assert steps["server.training.train_sentences"] == 1  # the default LSTM, once
    at.run()
    assert not errors(at) and at.get("plotly_chart")  # the model's sections are filled in


@pytest.mark.parametrize("stem, part", [("rnn_bptt", "step"), ("gradients", "connectivity")])
def test_the_runs_a_page_starts_on_its_own_are_marked_automatic(stem, part):
    """Runs a page queues by itself (no click) are ``automatic``: a click replaces them, and they
    are stopped when the browser leaves (server/presence.py); a run the student asked for is never."""
    from server.job_queue import scheduler

    _idle()
    at = run_page(stem, "en", query={"corpus": "synthetic", "sents": "400", "part": part})  # a part that needs a model
    assert not errors(at)
    owner = at.session_state["owner_id"]
    jobs = scheduler().jobs_of(owner)
    assert jobs and all(job.automatic for job in jobs), [(j.kind, j.automatic) for j in jobs]
    scheduler().stop_all()
    _idle()

