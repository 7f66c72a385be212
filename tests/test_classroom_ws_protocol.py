"""The websocket student's rule for "my fragment run reached the browser" (bench/classroom_runs.py).

The status sequences are those a Streamlit 1.67 server sent in the 16-student run on the gradients
page: a finished fragment run whose status the server rewrote to "early for rerun" because the next
fragment run started before the flush (its deltas kept), and a run really cut short by a full rerun.
"""
from __future__ import annotations

import sys

from tests.browser_server import ROOT

sys.path.insert(0, str(ROOT / "bench"))
from classroom_runs import EARLY_FOR_RERUN, FINISHED, FRAGMENT_DONE, fragment_run_delivered  # noqa: E402

MINE, POLL = ("98414e",), ("4a0ab9", "9017df")


def test_a_fragment_run_that_finished_is_delivered() -> None:
    assert fragment_run_delivered([("start", MINE, None), ("end", MINE, FRAGMENT_DONE)], "98414e")


def test_a_rewritten_status_followed_by_the_next_fragment_run_is_delivered() -> None:
    log = [("start", MINE, None), ("end", MINE, EARLY_FOR_RERUN), ("start", POLL, None)]
    assert fragment_run_delivered(log, "98414e")


def test_an_early_end_before_anything_else_starts_is_not_yet_delivered() -> None:
    assert not fragment_run_delivered([("start", MINE, None), ("end", MINE, EARLY_FOR_RERUN)], "98414e")


def test_an_early_end_followed_by_a_full_run_waits_for_that_run() -> None:
    log = [("start", MINE, None), ("end", MINE, EARLY_FOR_RERUN), ("start", (), None), ("end", (), FINISHED)]
    assert not fragment_run_delivered(log, "98414e")


def test_another_fragments_runs_do_not_count() -> None:
    log = [("start", POLL, None), ("end", POLL, FRAGMENT_DONE), ("end", POLL, EARLY_FOR_RERUN), ("start", POLL, None)]
    assert not fragment_run_delivered(log, "98414e")
