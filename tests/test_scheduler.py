"""The job scheduler: order, concurrency cap, one running job per owner, Stop, time cap, failures;
jobs as specs run by registered runners. Waits are on events and conditions; nothing sleeps to see
that a thing did not happen."""
import pickle
import threading

import pytest

from server.scheduler import CANCELLED, DONE, FAILED, QUEUED, RUNNING, JobSpec, Runners, Scheduler, SchedulerBusy
from server.store import InProcessStore


class Lab:
    """A scheduler whose runners call the test's functions: each submitted function is named in the
    spec's parameters (plain data, as a real spec's are). It records which runs overlap."""

    def __init__(self, workers, **options):
        self.runners, self.functions, self._lock = Runners(), {}, threading.Lock()
        self.sched = Scheduler(workers, runners=self.runners, **options)
        self.running, self.most_at_once, self.log = {}, 0, []

    def _run(self, ctx):
        with self._lock:
            self.running[ctx.owner] = self.running.get(ctx.owner, 0) + 1
            self.most_at_once = max(self.most_at_once, sum(self.running.values()))
            assert self.running[ctx.owner] == 1, f"two runs of {ctx.owner} at once"
            self.log.append(("start", ctx.params["fn"]))
        try:
            return self.functions[ctx.params["fn"]](ctx)
        finally:
            with self._lock:
                self.running[ctx.owner] -= 1
                self.log.append(("end", ctx.params["fn"]))

    def submit(self, owner, kind, fn, **options):
        name = f"fn{len(self.functions)}"
        self.functions[name] = fn
        self.runners.register(kind, self._run)
        return self.sched.submit(owner, JobSpec(kind, {"fn": name}), **options)

    def __getattr__(self, name):  # everything else is the scheduler's
        return getattr(self.sched, name)


def blocker(started: list, release: threading.Event, name: str):
    def run(ctx):
        started.append(name)
        while not release.wait(0.01):
            if ctx.should_stop():
                return f"{name}-stopped"
        return name
    return run


class Started(list):
    """The names of the runs that started, with a condition to wait on (no polling)."""

    def __init__(self) -> None:
        super().__init__()
        self._changed = threading.Condition()

    def append(self, name) -> None:
        with self._changed:
            super().append(name)
            self._changed.notify_all()

    def wait_for(self, predicate, timeout=30.0) -> None:
        with self._changed:
            assert self._changed.wait_for(lambda: predicate(self), timeout), f"condition not reached: {list(self)}"


def test_cap_order_and_queue_position():
    sched, release, started = Lab(workers=2), threading.Event(), Started()
    jobs = [sched.submit(f"owner{i}", "train", blocker(started, release, f"j{i}"), estimate=10) for i in range(5)]
    started.wait_for(lambda started: len(started) >= 2)
    assert sorted(started) == ["j0", "j1"] and [j.state for j in jobs] == [RUNNING, RUNNING, QUEUED, QUEUED, QUEUED]
    assert [sched.position(j) for j in jobs[2:]] == [2, 3, 4]
    etas = [sched.eta(j) for j in jobs[2:]]  # read one after the other: the running jobs' remaining time shrinks meanwhile
    assert etas[0] <= etas[1] + 1 and etas[1] <= etas[2] + 1 and etas[2] >= etas[0] + 5  # j4 waits for j2 to end
    release.set()
    for job in jobs:
        assert sched.wait(job, 30)
    assert sorted(started[:2]) == ["j0", "j1"] and sorted(started[2:]) == ["j2", "j3", "j4"] and all(j.state == DONE for j in jobs)
    assert [j.result for j in jobs] == [f"j{i}" for i in range(5)]
    assert sched.most_at_once == 2  # never a third run while two ran (j0 and j1 held until release)


def test_one_running_job_per_owner_and_same_kind_returns_the_active_job():
    sched, release, started = Lab(workers=2), threading.Event(), Started()
    first = sched.submit("alice", "lstm", blocker(started, release, "a1"))
    again = sched.submit("alice", "lstm", blocker(started, release, "a-dup"))
    assert again is first
    second = sched.submit("alice", "clip", blocker(started, release, "a2"))
    other = sched.submit("bob", "lstm", blocker(started, release, "b1"))
    started.wait_for(lambda started: len(started) >= 2)
    assert sorted(started) == ["a1", "b1"] and second.state == QUEUED  # a free worker, but alice is busy
    release.set()
    for job in (first, second, other):
        assert sched.wait(job, 30)
    assert "a-dup" not in started and second.result == "a2"
    names = {"a1": first.params["fn"], "a2": second.params["fn"]}  # alice's second run began after her first ended
    assert sched.log.index(("end", names["a1"])) < sched.log.index(("start", names["a2"]))


def test_a_click_replaces_the_pages_automatic_run_of_the_same_kind():
    """A page's default model trains on its own; the owner's explicit Train stops it (it keeps what
    it has) and runs next, instead of silently waiting for the default run to end."""
    sched, release, started = Lab(workers=2), threading.Event(), Started()
    auto = sched.submit("alice", "lstm", blocker(started, release, "default"), automatic=True)
    started.wait_for(lambda started: started == ["default"])
    assert sched.submit("alice", "lstm", blocker(started, release, "auto-again"), automatic=True) is auto
    mine = sched.submit("alice", "lstm", blocker(started, release, "mine"))
    assert mine is not auto and auto.stop_requested
    assert sched.wait(auto, 30) and auto.result == "default-stopped"
    started.wait_for(lambda started: "mine" in started)
    assert sched.submit("alice", "lstm", blocker(started, release, "dup")) is mine  # a click never replaces a click
    release.set()
    assert sched.wait(mine, 30) and mine.result == "mine" and "auto-again" not in started and "dup" not in started


def test_stop_cancels_queued_and_ends_running():
    sched, release, started = Lab(workers=1), threading.Event(), Started()
    running = sched.submit("a", "k", blocker(started, release, "run"))
    queued = sched.submit("b", "k", blocker(started, release, "never"))
    started.wait_for(lambda started: started == ["run"])
    sched.stop(queued)
    assert queued.state == CANCELLED
    sched.stop(running)
    assert sched.wait(running, 30) and running.state == DONE and running.result == "run-stopped"
    after = sched.submit("c", "k", lambda ctx: started.append("after"))  # first come, first served:
    assert sched.wait(after, 30)  # had the cancelled job still been queued, it would have run before this one
    assert started == ["run", "after"] and queued.state == CANCELLED


def test_time_cap_stops_a_run_that_checks():
    sched, release, started = Lab(workers=1, time_cap=0.2), threading.Event(), Started()
    job = sched.submit("a", "k", blocker(started, release, "slow"))
    assert sched.wait(job, 30)
    assert job.result == "slow-stopped" and job.timed_out and not job.stop_requested


def test_a_failing_job_reports_its_error_and_the_worker_goes_on():
    sched = Lab(workers=1)

    def boom(ctx):
        raise ValueError("bad data")

    bad = sched.submit("a", "k", boom)
    good = sched.submit("b", "k", lambda ctx: 42)
    assert sched.wait(bad, 30) and sched.wait(good, 30)
    assert bad.state == FAILED and "bad data" in bad.error and good.result == 42


def test_a_run_that_cannot_go_on_tells_its_owner_and_logs_one_line(capsys):
    """A run whose input is gone (RunCannotGoOn) fails with its message for the owner; the server's
    log gets one line, not a traceback (a class's log then shows only real faults)."""
    from server.scheduler import RunCannotGoOn

    sched = Lab(workers=1)

    def gone(ctx):
        raise RunCannotGoOn("the corpus of this run is no longer in memory")

    job = sched.submit("a", "k", gone)
    assert sched.wait(job, 30)
    assert job.state == FAILED and job.error == "the corpus of this run is no longer in memory"
    logged = capsys.readouterr()
    assert "Traceback" not in logged.err + logged.out and "no longer in memory" in logged.out


def test_full_queue_and_owner_share_are_refused():
    sched, release, started = Lab(workers=1, max_queue=2, per_owner=2), threading.Event(), Started()
    sched.submit("a", "k1", blocker(started, release, "1"))
    sched.submit("a", "k2", blocker(started, release, "2"))
    with pytest.raises(SchedulerBusy):
        sched.submit("a", "k3", blocker(started, release, "3"))  # owner share
    started.wait_for(lambda started: started == ["1"])
    sched.submit("b", "k", blocker(started, release, "4"))
    with pytest.raises(SchedulerBusy):
        sched.submit("c", "k", blocker(started, release, "5"))  # queue full (2 waiting)
    release.set()


def test_progress_reports_reach_the_job():
    sched, seen, reported = Lab(workers=1), threading.Event(), threading.Event()

    def run(ctx):
        ctx.report(0.5, {"step": 5})
        reported.set()
        seen.wait(10)
        return "ok"

    job = sched.submit("a", "k", run)
    assert reported.wait(30) and job.progress == 0.5
    assert job.status == {"step": 5}
    seen.set()
    assert sched.wait(job, 30) and job.progress == 1.0


def test_the_automatic_runs_of_a_browser_that_left_are_stopped_and_its_own_runs_go_on():
    """After a class, the pages' default runs of browsers that closed must not keep the training slot."""
    sched, release, started = Lab(workers=1), threading.Event(), Started()
    running_auto = sched.submit("gone", "lstm", blocker(started, release, "gone-auto"), automatic=True)
    started.wait_for(lambda started: started == ["gone-auto"])
    queued_auto = sched.submit("gone", "clip", blocker(started, release, "gone-clip"), automatic=True)
    clicked = sched.submit("gone-too", "lstm", blocker(started, release, "clicked"))
    staying = sched.submit("here", "clip", blocker(started, release, "here-auto"), automatic=True)
    stopped = sched.stop_automatic_of(lambda owner: owner.startswith("gone"))
    assert sorted(j.id for j in stopped) == sorted([running_auto.id, queued_auto.id])
    assert queued_auto.state == CANCELLED and sched.wait(running_auto, 30) and running_auto.result == "gone-auto-stopped"
    release.set()
    assert sched.wait(clicked, 30) and clicked.result == "clicked"
    assert sched.wait(staying, 30) and staying.result == "here-auto" and "gone-clip" not in started


def test_a_key_is_unused_only_after_its_sessions_were_gone_for_the_grace_time():
    """A browser (owner) has left once none of its sessions was connected for the grace time; it is
    reported once, and touching it again starts over."""
    from server.sessions import SessionUse

    people, active = SessionUse(grace=10.0), {"s1", "s2"}
    people.touch("s1", "alice")
    people.touch("s2", "alice")
    assert people.unused(active.__contains__, now=0.0) == []
    active.discard("s1")
    assert people.unused(active.__contains__, now=1.0) == []  # a second tab is still open
    active.discard("s2")
    assert people.unused(active.__contains__, now=2.0) == []  # just closed (or reloading)
    assert people.unused(active.__contains__, now=11.9) == []
    assert people.unused(active.__contains__, now=12.0) == ["alice"]
    assert people.unused(active.__contains__, now=13.0) == []  # reported once
    people.touch("s3", "alice")  # came back
    active.add("s3")
    assert people.unused(active.__contains__, now=30.0) == []
    people.touch("s4", "bob")  # never connected as far as the server knows: unused after the grace
    assert people.unused(active.__contains__, now=30.0) == [] and people.unused(active.__contains__, now=40.0) == ["bob"]


def test_a_job_is_a_spec_of_plain_data_run_by_its_kind_s_runner():
    """What a queue of another back end needs: a spec that pickles, and runners found by kind; a
    finished job's record keeps its spec and result, not what the run read (here: a text in a store)."""
    import gc
    import weakref

    class Text:  # stands for the corpus a training run reads
        pass

    runners, store = Runners(), {"t1": Text()}
    alive = weakref.ref(store["t1"])
    runners.register("count", lambda ctx: f"{ctx.owner}:{type(store[ctx.params['text']]).__name__}")
    sched = Scheduler(workers=1, runners=runners)
    spec = JobSpec("count", {"text": "t1", "sizes": [1, 2]})
    assert pickle.loads(pickle.dumps(spec)) == spec
    job = sched.submit("alice", spec)
    assert sched.wait(job, 30) and job.state == DONE and job.result == "alice:Text" and job.kind == "count"
    with pytest.raises(KeyError):
        sched.submit("alice", JobSpec("nobody-runs-this"))
    del store["t1"]
    gc.collect()
    assert alive() is None


def test_the_pages_active_job_is_the_one_of_the_kind_they_ask_for(monkeypatch):
    """An owner whose clipping run is active and whose LSTM run is queued: the LSTM page asks for the
    LSTM run and must get it (it said there was no model while the LSTM was queued). The pages read
    the jobs' records from the job store, where the scheduler publishes them."""
    from server import job_queue, jobs
    from server.job_queue import publish_to

    store = InProcessStore(2**20)
    lab, release, started = Lab(workers=1, on_change=publish_to(store)), threading.Event(), Started()
    monkeypatch.setattr(job_queue, "job_store", lambda: store)
    monkeypatch.setattr(jobs, "owner_id", lambda: "alice")
    clip = lab.submit("alice", "clip", blocker(started, release, "clip"))
    lstm = lab.submit("alice", "lstm", blocker(started, release, "lstm"))
    lab.submit("bob", "lstm", blocker(started, release, "bob's"))
    started.wait_for(lambda started: started == ["clip"])
    assert jobs.active_job("lstm") is lstm and jobs.active_job("clip") is clip and jobs.active_job("rnn") is None
    assert jobs.latest_job("lstm") is lstm and [j.kind for j in jobs.my_jobs()] == ["lstm", "clip"]
    release.set()
    assert lab.wait_idle(30)
    assert jobs.active_job("lstm") is None and jobs.latest_job("lstm").state == DONE


def test_the_scheduler_publishes_every_change_and_an_ended_record_expires():
    from server.job_queue import publish_to, read_jobs

    clock, seen = [0.0], []
    store = InProcessStore(2**20, clock=lambda: clock[0])
    publish = publish_to(store, keep_seconds=60)
    lab, release = Lab(workers=1, on_change=lambda job: (seen.append(job.state), publish(job))), threading.Event()

    reported = threading.Event()

    def run(ctx):
        ctx.report(0.5, "half")
        reported.set()
        release.wait(30)
        return "ok"

    job = lab.submit("alice", "k", run)
    assert reported.wait(30) and job.progress == 0.5
    assert read_jobs(store, "alice", "k") == [job] and read_jobs(store, "alice", "other") == []
    release.set()
    assert lab.wait(job, 30) and job.state == DONE
    assert seen == [QUEUED, RUNNING, RUNNING, DONE]  # queued, started, reported, ended
    clock[0] = 59.0
    assert read_jobs(store, "alice") == [job]
    clock[0] = 60.0
    assert read_jobs(store, "alice") == []  # kept 60 s after it ended


def test_a_click_runs_before_the_waiting_automatic_runs():
    """Clicks before automatic work: a page's default models do not hold back a Train click."""
    sched, release, started = Lab(workers=1), threading.Event(), Started()
    sched.submit("zoe", "lstm", blocker(started, release, "busy"))
    started.wait_for(lambda started: started == ["busy"])
    autos = [sched.submit(f"page{i}", "lstm", lambda ctx, i=i: started.append(f"auto{i}"), automatic=True) for i in range(2)]
    click = sched.submit("carl", "lstm", lambda ctx: started.append("click"))
    assert sched.position(click) == 1 and [sched.position(a) for a in autos] == [2, 3]
    assert sched.eta(click) < sched.eta(autos[0]) + 1
    release.set()
    assert sched.wait_idle(30) and started == ["busy", "click", "auto0", "auto1"]


def test_the_next_automatic_run_replaces_a_queued_one():
    """The page moved on (another corpus): its queued automatic run gives way to the new one."""
    sched, release, started = Lab(workers=1), threading.Event(), Started()
    sched.submit("yan", "lstm", blocker(started, release, "busy"))
    started.wait_for(lambda started: started == ["busy"])
    sched.functions["x"] = lambda ctx: started.append(ctx.params["corpus"])
    sched.runners.register("clip", sched._run)
    old = sched.sched.submit("page", JobSpec("clip", {"fn": "x", "corpus": "a"}), automatic=True)
    same = sched.sched.submit("page", JobSpec("clip", {"fn": "x", "corpus": "a"}), automatic=True)
    new = sched.sched.submit("page", JobSpec("clip", {"fn": "x", "corpus": "b"}), automatic=True)
    assert same is old and new is not old and old.state == CANCELLED
    release.set()
    assert sched.wait_idle(30) and started == ["busy", "b"]
