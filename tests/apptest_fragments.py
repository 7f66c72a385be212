"""Fragment reruns in AppTest, as the browser asks for them.

``AppTest.run()`` always reruns the whole script. A browser whose widget sits in an ``st.fragment``
asks for a rerun of that fragment only; :func:`run_fragment` does the same here: it sends the
widgets' current values with the fragment's id, times the run, and keeps the messages the server
sent, so a test can check that nothing outside the fragment was recomputed or resent. No import
from the app: bench/page_latency.py loads this file to time older commits too.
"""
from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial

from streamlit.testing.v1 import AppTest
from streamlit.testing.v1 import local_script_runner


@dataclass
class Run:
    """One script run: its wall time and what it sent."""

    seconds: float
    messages: list
    fragment_ids: tuple[str, ...] = ()

    @property
    def deltas(self) -> list:
        return [m for m in self.messages if m.WhichOneof("type") == "delta"]

    @property
    def outside(self) -> list:
        """Element deltas that belong to none of the rerun fragments (none expected in a fragment run)."""
        return [m for m in self.deltas if m.delta.fragment_id not in self.fragment_ids]

    @property
    def payload_bytes(self) -> int:
        return sum(m.ByteSize() for m in self.messages)


@contextmanager
def _recording(sink: list, fragment_ids: tuple[str, ...] = ()):
    runner_cls = local_script_runner.LocalScriptRunner
    original_rerun_data, original_run = local_script_runner.RerunData, runner_cls.run

    def run(self, *args, **kwargs):
        try:
            return original_run(self, *args, **kwargs)
        finally:
            sink.extend(self.forward_msgs())

    if fragment_ids:
        local_script_runner.RerunData = partial(original_rerun_data, fragment_id_queue=list(fragment_ids),
                                                is_fragment_scoped_rerun=True)
    runner_cls.run = run
    try:
        yield
    finally:
        local_script_runner.RerunData, runner_cls.run = original_rerun_data, original_run


def run_app(at: AppTest, timeout: float = 120) -> Run:
    """A whole-script rerun with the widget values set on ``at``, recorded."""
    messages: list = []
    with _recording(messages):
        start = time.perf_counter()
        at._tree.run(timeout=timeout)
        return Run(time.perf_counter() - start, messages)


def run_fragment_ids(at: AppTest, ids: tuple[str, ...], timeout: float = 120) -> Run:
    """Rerun only the fragments ``ids`` with the widget values set on ``at`` (``set_value`` etc.).

    ``at``'s element tree then holds that run's elements only; call ``at.run()`` to see the whole page."""
    messages: list = []
    with _recording(messages, tuple(ids)):
        start = time.perf_counter()
        at._tree.run(timeout=timeout)
        return Run(time.perf_counter() - start, messages, tuple(ids))


def fragment_ids(at: AppTest, key: str) -> tuple[str, ...]:
    """Ids of the fragment(s) declared with ``@st.fragment(key=key)`` in the last run."""
    return tuple(at._fragment_storage.resolve_target(key))


def run_fragment(at: AppTest, key: str, timeout: float = 120) -> Run:
    """Rerun only the fragment declared with ``@st.fragment(key=key)`` (see :func:`run_fragment_ids`)."""
    ids = fragment_ids(at, key)
    assert ids, f"no fragment {key!r} in the last run"
    return run_fragment_ids(at, ids, timeout)


def widget_fragment(run: Run, key: str) -> str:
    """The id of the innermost fragment holding the widget with user key ``key`` ("" if none)."""
    for message in run.deltas:
        element = message.delta.new_element
        kind = element.WhichOneof("type")
        widget_id = getattr(getattr(element, kind), "id", "") if kind else ""
        if isinstance(widget_id, str) and widget_id.endswith("-" + key):
            return message.delta.fragment_id
    raise KeyError(f"no widget with key {key!r} in the run")
