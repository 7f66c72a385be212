"""Fragment reruns in AppTest, as the browser asks for them.

``AppTest.run()`` always reruns the whole script. A browser whose widget sits in an ``st.fragment``
asks for a rerun of that fragment only; :func:`run_fragment` does the same here: it sends the
widgets' current values with the fragment's id, times the run, and keeps the messages the server
sent, so a test can check that nothing outside the fragment was recomputed or resent.
"""
from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial

from streamlit.testing.v1 import AppTest
from streamlit.testing.v1 import local_script_runner


@dataclass
class FragmentRun:
    seconds: float
    deltas: int  # element deltas the run sent
    outside: int  # of those, how many belong to no rerun fragment (must be 0)
    payload_bytes: int  # size of every message the run sent


@contextmanager
def _scoped_to(fragment_ids: list[str], sink: list):
    runner_cls = local_script_runner.LocalScriptRunner
    original_rerun_data, original_run = local_script_runner.RerunData, runner_cls.run

    def run(self, *args, **kwargs):
        try:
            return original_run(self, *args, **kwargs)
        finally:
            sink.extend(self.forward_msgs())

    local_script_runner.RerunData = partial(original_rerun_data, fragment_id_queue=list(fragment_ids),
                                            is_fragment_scoped_rerun=True)
    runner_cls.run = run
    try:
        yield
    finally:
        local_script_runner.RerunData, runner_cls.run = original_rerun_data, original_run


def fragment_ids(at: AppTest, key: str) -> list[str]:
    """Ids of the fragment(s) declared with ``@st.fragment(key=key)`` in the last run."""
    return at._fragment_storage.resolve_target(key)


def run_fragment(at: AppTest, key: str, timeout: float = 120) -> FragmentRun:
    """Rerun only the fragment ``key`` with the widget values set on ``at`` (``set_value`` etc.).

    ``at``'s element tree then holds that run's elements only; call ``at.run()`` to see the whole page."""
    ids, messages = fragment_ids(at, key), []
    assert ids, f"no fragment {key!r} in the last run"
    with _scoped_to(ids, messages):
        start = time.perf_counter()
        at._tree.run(timeout=timeout)
        seconds = time.perf_counter() - start
    deltas = [m for m in messages if m.WhichOneof("type") == "delta"]
    outside = [m for m in deltas if m.delta.fragment_id not in ids]
    return FragmentRun(seconds, len(deltas), len(outside), sum(m.ByteSize() for m in messages))
