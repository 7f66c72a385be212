"""server/env.py: every LMLAB_* number the server reads falls back to its default on a bad value and
respects its minimum (a bad value must never stop the server from starting)."""
import pytest

from server.corpus_worker import worker_count
from server.env import env_number
from server.env import time_cap, training_slots
from server.sessions import reconnect_seconds


@pytest.mark.parametrize(("raw", "expected"), [
    (None, 7.0), ("30", 30.0), ("2.5", 2.5), ("-3", 1.0), ("soon", 7.0), ("", 7.0), ("nan", 7.0), ("inf", 7.0),
])
def test_a_number_from_the_environment(monkeypatch, raw, expected):
    if raw is None:
        monkeypatch.delenv("LMLAB_TEST_NUMBER", raising=False)
    else:
        monkeypatch.setenv("LMLAB_TEST_NUMBER", raw)
    assert env_number("LMLAB_TEST_NUMBER", 7.0, minimum=1.0) == expected


def test_the_readers_keep_their_defaults_and_minimums(monkeypatch):
    for name in ("LMLAB_RECONNECT_SECONDS", "LMLAB_JOB_SECONDS", "LMLAB_BUILD_WORKERS", "LMLAB_TRAINING_SLOTS"):
        monkeypatch.setenv(name, "soon")
    assert (reconnect_seconds(), time_cap(), worker_count()) == (5.0, 240.0, 1) and training_slots() >= 1
    for name in ("LMLAB_RECONNECT_SECONDS", "LMLAB_JOB_SECONDS", "LMLAB_BUILD_WORKERS", "LMLAB_TRAINING_SLOTS"):
        monkeypatch.setenv(name, "0")
    assert (reconnect_seconds(), time_cap(), worker_count(), training_slots()) == (0.0, 5.0, 1, 1)
    monkeypatch.setenv("LMLAB_TRAINING_SLOTS", "3")
    monkeypatch.setenv("LMLAB_RECONNECT_SECONDS", "30")
    assert (training_slots(), reconnect_seconds()) == (3, 30.0)
