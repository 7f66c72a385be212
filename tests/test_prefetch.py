"""server/prefetch.py: work handed over by a run is done after that run, newest first, and dropped on failure."""
import threading
import time

import pytest

from server import prefetch

WAIT_SECONDS = 30.0  # generous: a busy machine; the tests wait on events, never on a time


@pytest.fixture
def real_server(monkeypatch):
    """As in a real server (one session connected), with a queue and worker of the test's own."""
    import server.sessions

    monkeypatch.setattr(server.sessions, "connected_sessions", lambda: 1)
    monkeypatch.setattr(prefetch, "_waiting", type(prefetch._waiting)())
    monkeypatch.setattr(prefetch, "_worker", None)
    yield
    with prefetch._lock:  # the test's worker stops (a test's task failing on purpose may have ended it already)
        worker, prefetch._worker = prefetch._worker, None
        prefetch._lock.notify_all()
    if worker is not None:
        worker.join(WAIT_SECONDS)
        assert not worker.is_alive()


def in_a_run(hand_over) -> threading.Thread:
    """Call ``hand_over()`` on a thread of its own (a script run), which ends when ``hand_over`` returns."""
    run = threading.Thread(target=hand_over)
    run.start()
    return run


@pytest.mark.parametrize(("value", "low", "high", "step", "expected"), [
    (0.0, -3.0, 5.0, 0.5, [-0.5, 0.5]), (5.0, -3.0, 5.0, 0.5, [4.5]), (-3.0, -3.0, 5.0, 0.5, [-2.5]),
    (1.0, 0.5, 2.0, 0.05, [0.95, 1.05]), (0.1, 0.05, 0.95, 0.05, [0.05, 0.15]), (3, 1, 6, 1, [2, 4]), (1, 1, 6, 1, [2]),
    (2.0, 2.0, 2.0, 0.5, []),
])
def test_neighbours_are_the_values_one_step_away_as_a_move_gives_them(value, low, high, step, expected):
    got = prefetch.neighbours(value, low, high, step)
    assert got == expected and [type(v) for v in got] == [type(value)] * len(expected)
    assert all(repr(v) == repr(e) for v, e in zip(got, expected))  # 0.15, not 0.15000000000000002


def test_outside_a_real_server_nothing_is_done_but_a_test_can_collect_the_tasks():
    done = []
    prefetch.ahead("a", lambda: done.append("a"))  # pytest is no server: dropped
    with prefetch.collecting() as tasks:
        prefetch.ahead("b", lambda: done.append("b"))
    assert [key for key, _ in tasks] == ["b"] and prefetch._worker is None
    tasks[0][1]()
    assert done == ["b"]


def test_a_task_runs_once_the_run_that_handed_it_over_has_ended(real_server):
    ended, seen, done = threading.Event(), [], threading.Event()
    release = threading.Event()

    def hand_over():
        prefetch.ahead("k", lambda: (seen.append(ended.is_set()), done.set()))
        release.wait(WAIT_SECONDS)  # the rest of the run
        ended.set()

    run = in_a_run(hand_over)
    time.sleep(0.05)  # the worker had the time to start the task early, were it to
    assert seen == []
    release.set()
    run.join(WAIT_SECONDS)
    assert done.wait(WAIT_SECONDS) and seen == [True]


def busy_worker() -> threading.Event:
    """The worker kept busy on a task until the event returned is set (what is handed over meanwhile waits)."""
    busy, started = threading.Event(), threading.Event()
    in_a_run(lambda: prefetch.ahead("busy", lambda: (started.set(), busy.wait(WAIT_SECONDS)))).join(WAIT_SECONDS)
    assert started.wait(WAIT_SECONDS)
    return busy


def test_the_newest_tasks_run_first_and_older_ones_beyond_the_limit_are_dropped(real_server):
    order, last = [], threading.Event()
    busy = busy_worker()
    n = prefetch.MAX_WAITING + 4

    def hand_over():
        for i in range(n):
            prefetch.ahead(i, lambda i=i: (order.append(i), i == n - prefetch.MAX_WAITING and last.set()))
        prefetch.ahead(n - 1, lambda: (order.append(n - 1),))  # handed over again: still queued once

    in_a_run(hand_over).join(WAIT_SECONDS)
    busy.set()
    assert last.wait(WAIT_SECONDS)
    assert order == list(range(n - 1, n - 1 - prefetch.MAX_WAITING, -1))


def test_a_failing_task_is_dropped_and_the_next_one_still_runs(real_server):
    done = threading.Event()
    busy = busy_worker()

    def hand_over():
        prefetch.ahead("works", done.set)
        prefetch.ahead("fails", lambda: 1 / 0)  # the newest: done first

    in_a_run(hand_over).join(WAIT_SECONDS)
    busy.set()
    assert done.wait(WAIT_SECONDS)


def another_run() -> threading.Event:
    """A run of another session going on (a thread named as Streamlit names a run's) until the event is set."""
    end = threading.Event()
    threading.Thread(target=end.wait, args=(WAIT_SECONDS,), name=prefetch.SCRIPT_THREAD, daemon=True).start()
    return end


def test_a_task_waits_while_another_run_is_going_on(real_server, monkeypatch):
    monkeypatch.setattr(prefetch, "GIVE_WAY_SECONDS", WAIT_SECONDS)
    end, done = another_run(), threading.Event()
    in_a_run(lambda: prefetch.ahead("k", done.set)).join(WAIT_SECONDS)
    assert not done.wait(0.1)
    end.set()
    assert done.wait(WAIT_SECONDS)


def test_a_task_is_dropped_when_other_runs_keep_the_server_busy(real_server, monkeypatch):
    monkeypatch.setattr(prefetch, "GIVE_WAY_SECONDS", 0.0)
    monkeypatch.setattr(prefetch, "dropped", 0)
    end, done = another_run(), []
    in_a_run(lambda: prefetch.ahead("busy", lambda: done.append("busy"))).join(WAIT_SECONDS)
    deadline = time.monotonic() + WAIT_SECONDS
    while prefetch.dropped == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    end.set()
    later = threading.Event()
    while any(t.name == prefetch.SCRIPT_THREAD for t in threading.enumerate()) and time.monotonic() < deadline:
        time.sleep(0.01)
    in_a_run(lambda: prefetch.ahead("quiet", later.set)).join(WAIT_SECONDS)
    assert later.wait(WAIT_SECONDS) and prefetch.dropped == 1 and done == []
