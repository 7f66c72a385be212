"""server/warmup.py: the background warm-up of a fresh server gives way to script runs and fills the
shared stores the pages read for the built-in samples."""
from __future__ import annotations

import subprocess
import sys
import threading
import types
from pathlib import Path

import pytest

from lmcore.samples import default_settings, load_sample
from server import warmup

ROOT = Path(__file__).resolve().parents[1]


def test_the_warm_up_waits_while_a_script_runs(monkeypatch):
    monkeypatch.setattr(warmup, "GIVE_WAY_SECONDS", 600.0)
    monkeypatch.setattr(warmup, "AFTER_RUN_SECONDS", 0.0)
    with warmup.script_run():
        waiter = threading.Thread(target=warmup._give_way, daemon=True)
        waiter.start()
        waiter.join(0.5)
        assert waiter.is_alive()  # a run is going on: the warm-up waits
    waiter.join(60)
    assert not waiter.is_alive()  # the run ended: it goes on


def test_the_warm_up_waits_a_moment_after_a_run_while_the_browser_draws(monkeypatch):
    monkeypatch.setattr(warmup, "GIVE_WAY_SECONDS", 600.0)
    monkeypatch.setattr(warmup, "AFTER_RUN_SECONDS", 600.0)
    with warmup.script_run():
        pass
    waiter = threading.Thread(target=warmup._give_way, daemon=True)
    waiter.start()
    waiter.join(0.5)
    assert waiter.is_alive()  # the run just ended: its page is being drawn
    monkeypatch.setattr(warmup, "AFTER_RUN_SECONDS", 0.0)
    with warmup._quiet:
        warmup._quiet.notify_all()
    waiter.join(60)
    assert not waiter.is_alive()


def test_a_failing_run_still_lets_the_warm_up_go_on(monkeypatch):
    monkeypatch.setattr(warmup, "GIVE_WAY_SECONDS", 600.0)
    monkeypatch.setattr(warmup, "AFTER_RUN_SECONDS", 0.0)
    try:
        with warmup.script_run():
            raise RuntimeError("the page failed")
    except RuntimeError:
        pass
    waiter = threading.Thread(target=warmup._give_way, daemon=True)
    waiter.start()
    waiter.join(60)
    assert not waiter.is_alive()


@pytest.mark.parametrize("name", ["english", "chinese", "synthetic"])
def test_the_warm_up_stores_each_sample_s_corpus_counts_and_shipped_models(name):
    from lmcore.samples import SAMPLES
    from server.corpus_keys import corpus_key
    from server.models import count_order, counts_key, shared_counts, shipped_models
    from server.recurrent_models import LSTM, RNN
    from server.stores import data_store

    assert {"english", *warmup.SAMPLES_LATER} == set(SAMPLES)  # every sample is warmed
    warmup._sample_defaults(name)
    settings = default_settings(name)
    stored = data_store().get(corpus_key(name, settings))  # under the key the sidebar reads
    assert stored is not None and stored.key == load_sample(name, settings).key
    assert counts_key(stored, count_order(stored)) in data_store()
    assert {"valid", "test"} <= set(stored._mapped)  # mapped now, not in a student's first run
    counts = shared_counts(stored)  # read from the store: the very object the warm-up built
    assert counts is shared_counts(stored) and counts.max_order >= 3
    if name == "english":
        shipped = shipped_models()
        assert all(shipped.get(stored.key, config) is not None for config in (RNN, LSTM))


def test_heavy_imports_wait_for_an_idle_server_however_long(monkeypatch):
    """torch._dynamo (seconds of CPU holding the GIL) waits for IDLE_SECONDS without a run, with
    no time limit: a visitor clicking through pages is never slowed down by it."""
    imported = []
    monkeypatch.setattr(warmup, "GIVE_WAY_SECONDS", 0.0)  # the light steps' patience does not apply
    monkeypatch.setattr(warmup, "IDLE_SECONDS", 600.0)
    # The warm-up's own importlib only (patching importlib.import_module itself breaks other threads'
    # imports), and only this test's thread counts: an app run earlier in this process started a warm-up too.
    monkeypatch.setattr(warmup, "importlib", types.SimpleNamespace(
        import_module=lambda name: imported.append(name) if threading.current_thread() is waiter else None))
    with warmup.script_run():
        pass
    waiter = threading.Thread(target=warmup._import_heavy, daemon=True)
    waiter.start()
    waiter.join(1.0)
    assert waiter.is_alive() and imported == []  # a run ended just now: not idle yet
    monkeypatch.setattr(warmup, "IDLE_SECONDS", 0.0)
    with warmup._quiet:
        warmup._quiet.notify_all()
    waiter.join(60)
    assert not waiter.is_alive() and imported == list(warmup.HEAVY_MODULES)


def test_after_the_warm_up_no_figure_builder_imports_a_plotly_module():
    """Every graph_objs module a figure builder reaches is imported by the warm-up, not in a class
    (a module imported then lives as long as the server among the class's short-lived objects).
    In a fresh interpreter: this process has imported them all already."""
    script = (
        "import sys\n"
        "from server import warmup\n"
        "from tests.figure_cases import cases\n"
        "warmup._plotly_validators()\n"
        "before = set(sys.modules)\n"
        "for items in cases().values():\n"
        "    for _, make in items:\n"
        "        make().to_json()\n"
        "print(sorted(m for m in set(sys.modules) - before if m.startswith(('plotly', '_plotly_utils', 'PIL'))))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[]"
