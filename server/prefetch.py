"""Work a control's next move will ask for, done ahead: right after the run that showed the control.

A slider's first move to a value nobody has asked for yet pays for its computation in the move's
run. On the LSTM page, moving the forget-gate bias computes ∂c(T)/∂c(k) for every k and their
spectral norms: ~50 ms of a first move that took ~180 ms to settle in the browser, against ~90 for
a value already made. After a run shows value v, its page hands the work for v's neighbours to
:func:`ahead`; one daemon thread does it once that run has ended, into the same shared caches the
runs read, so the next move finds it made.
- One task at a time, the newest first; at most :data:`MAX_WAITING` wait, and older ones are
  dropped (the values next to what a student sees now are the ones worth making).
- It uses the server's spare time only: a task waits while any other run is going on, and is dropped
  if one still is after :data:`GIVE_WAY_SECONDS` (a class keeping the server busy makes what it
  asks for in its own runs; a task never slows them down by more than the rest of its own length).
- A task that fails is dropped: the run that needs the value computes it and reports the problem.
- Only in a real server. In AppTest the tests time and count each run's work, so :func:`ahead`
  does nothing there unless a test collects the tasks (:func:`collecting`).
"""
from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from decimal import Decimal

MAX_WAITING = 8
RUN_END_WAIT_SECONDS = 30.0  # the longest a task waits for the run that handed it over to end
GIVE_WAY_SECONDS = 1.0  # the longest a task waits for the other runs going on to end
SCRIPT_THREAD = "ScriptRunner.scriptThread"  # Streamlit's name for the thread of a run

_log = logging.getLogger(__name__)
_lock = threading.Condition()
_waiting: OrderedDict[Hashable, tuple[Callable[[], object], threading.Thread]] = OrderedDict()
_worker: threading.Thread | None = None
_collected: list[tuple[Hashable, Callable[[], object]]] | None = None
dropped = 0  # tasks dropped because runs kept the server busy (read by tests and a curious operator)


def ahead(key: Hashable, task: Callable[[], object]) -> None:
    """Do ``task()`` once the calling run has ended (``key`` names what it makes: handed over again
    while it waits, it is queued once). ``task`` must not read the session (no ``st.*``): it runs
    on a thread of its own."""
    global _worker
    from server.sessions import connected_sessions

    with _lock:
        if _collected is not None:
            _collected.append((key, task))
            return
        if connected_sessions() is None:
            return
        _waiting.pop(key, None)
        _waiting[key] = (task, threading.current_thread())
        while len(_waiting) > MAX_WAITING:
            _waiting.popitem(last=False)
        if _worker is None:
            _worker = threading.Thread(target=_work, name="lmlab-prefetch", daemon=True)
            _worker.start()
        _lock.notify()


def neighbours(value: float, low: float, high: float, step: float) -> list[float]:
    """The values one step of a slider (``low``..``high`` by ``step``) away from ``value``, as a move
    would give them (rounded as the step is: 0.1 + 0.05 is 0.15, not 0.15000000000000002)."""
    digits = max(0, -Decimal(repr(float(step))).normalize().as_tuple().exponent)
    out = (round(value - step, digits), round(value + step, digits))
    return [type(value)(near) for near in out if low <= near <= high]


@contextmanager
def collecting() -> Iterator[list[tuple[Hashable, Callable[[], object]]]]:
    """For tests: the tasks handed over meanwhile, (key, task) in order, kept instead of done."""
    global _collected
    with _lock:
        _collected = []
    try:
        yield _collected
    finally:
        with _lock:
            _collected = None


def _work() -> None:
    global dropped
    me = threading.current_thread()
    while True:
        with _lock:
            while not _waiting and _worker is me:
                _lock.wait()
            if _worker is not me:  # no longer the module's worker (a test replaced it): stop
                return
            key, (task, run) = _waiting.popitem(last=True)
        if run is not threading.current_thread():
            run.join(RUN_END_WAIT_SECONDS)
        if not _quiet_within(GIVE_WAY_SECONDS):
            dropped += 1
            continue
        try:
            task()
        except Exception:  # noqa: BLE001 - the run that needs this value computes it and reports the problem
            _log.debug("prefetch %r failed", key, exc_info=True)


def _quiet_within(seconds: float) -> bool:
    """Whether no run is going on now or within ``seconds`` (checked every 10 ms)."""
    deadline = time.monotonic() + seconds
    while any(thread.name == SCRIPT_THREAD and thread.is_alive() for thread in threading.enumerate()):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.01)
    return True
