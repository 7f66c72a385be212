"""Training on the distributed queue (server/rq_jobs.py, server/worker.py) with real worker processes
and a redis-server of each test's own on a free port: progress and the result cross through Redis, Stop reaches a
running job, one running job per owner, and a worker SIGKILLed mid-job: its job is retried on another
worker, or (with no retries) reported failed to its owner, never silently lost. Waits poll a
condition with a deadline; nothing asserts a wall time."""
import os
import secrets
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest

from server.scheduler import CANCELLED, DONE, FAILED, QUEUED, RUNNING, JobSpec
from tests.redis_server import start_redis

ROOT = Path(__file__).resolve().parents[1]


SLOW_WAIT_SECONDS = 30  # a wait this long is reported (a warning with the workers' logs), never failed for it
_log_dir: list[Path] = []  # the running test's folder of worker logs (its tmp_path)
_redis: list = []  # the running test's Redis client: its clients and RQ's queues go into a slow wait's report


def until(condition, what: str, seconds: float = 120):
    start = time.monotonic()
    deadline = start + seconds
    while time.monotonic() < deadline:
        value = condition()
        if value:
            waited = time.monotonic() - start
            if waited > SLOW_WAIT_SECONDS:  # in two suite runs here such waits took ~70 s (2-3 s alone): say where
                warnings.warn(f"waited {waited:.0f} s for: {what}\n{_worker_logs()}", stacklevel=2)
            return value
        time.sleep(0.1)
    raise AssertionError(f"not within {seconds:.0f} s: {what}\n{_worker_logs()}")


def _worker_logs(tail: int = 3000) -> str:
    logs = "\n".join(f"--- {log.name}:\n{log.read_text(errors='replace')[-tail:]}"
                     for folder in _log_dir for log in sorted(folder.glob("worker-*.log")))
    for client in _redis:  # who is connected (a BLMOVE: a worker waiting for a job), and where the jobs are
        try:
            clients = "\n".join(" ".join(f"{k}={c.get(k)}" for k in ("id", "name", "age", "idle", "cmd", "laddr", "addr"))
                                 for c in client.client_list())
            queues = {key.decode(): client.lrange(key, 0, -1) for key in client.scan_iter("rq:queue:*")
                      if client.type(key) == b"list"}
            logs += f"\n--- redis clients:\n{clients}\n--- rq queues: {queues}"
        except Exception as error:  # noqa: BLE001 - a report, not a check
            logs += f"\n--- redis: {error!r}"
    return logs


class Workers:
    """``python -m server.worker`` processes, each in its own process group (worker and work horse),
    each writing its log (RQ's, with times) into ``logs``."""

    def __init__(self, url: str, logs: Path) -> None:
        self.url, self.logs, self.processes = url, logs, []

    def start(self, *timings: str) -> subprocess.Popen:
        """A worker; ``timings``: its heartbeat and maintenance options (server/worker.py)."""
        env = {**os.environ, "LMLAB_REDIS_URL": self.url, "LMLAB_WORKER_IMPORTS": "tests.worker_jobs",
               "TORCH_NUM_THREADS": "1"}
        name = f"w{secrets.token_hex(3)}"
        with open(self.logs / f"worker-{name}.log", "w") as out:
            process = subprocess.Popen([sys.executable, "-m", "server.worker", *timings, "--name", name], cwd=ROOT, env=env,
                                       start_new_session=True, stdout=out, stderr=subprocess.STDOUT)
        self.processes.append(process)
        return process

    def kill(self, process: subprocess.Popen, horse: int | None = None) -> None:
        """SIGKILL the worker's process group and its work horse (RQ gives the horse a session of its own)."""
        os.killpg(process.pid, signal.SIGKILL)
        if horse is not None:
            try:
                os.kill(horse, signal.SIGKILL)
            except ProcessLookupError:
                pass
        process.wait(30)

    def stop_all(self) -> None:
        """Kill every worker, and every work horse still running (a fork of its worker, in a process
        group of its own, so outside the worker's group: found by its worker's name)."""
        for process in self.processes:
            if process.poll() is None:
                self.kill(process)
        names = {process.args[-1].encode() for process in self.processes}
        for proc in Path("/proc").iterdir():
            try:
                args = (proc / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if proc.name.isdigit() and b"server.worker" in args and names & set(args):
                try:
                    os.kill(int(proc.name), signal.SIGKILL)
                except ProcessLookupError:
                    pass


@pytest.fixture
def queue(tmp_path):
    """A scheduler, workers and a client on a redis-server of this test's own. On the session's shared
    one, in two suite runs here, the first job of a test sat ~66 s in RQ's intermediate queue (taken by
    no worker of the test: none logged it) until RQ's one-minute cleanup queued it again: something
    left from an earlier test still waited for a job there. Nothing is left on a server of one's own."""
    import redis

    from server.rq_jobs import QueueScheduler

    server, url = start_redis(str(tmp_path))
    client = redis.Redis.from_url(url)
    _log_dir[:], _redis[:] = [tmp_path], [client]
    workers = Workers(url, tmp_path)
    os.environ["LMLAB_REDIS_URL"] = url  # for the gate in this process
    try:
        yield QueueScheduler(client, time_cap=600), workers, client
    finally:
        workers.stop_all()
        os.environ.pop("LMLAB_REDIS_URL", None)
        _redis.clear()
        client.close()
        server.terminate()
        server.wait(30)


def gated(gate: str) -> JobSpec:
    return JobSpec("test-gated", {"gate": gate})


def test_progress_result_and_stop_cross_through_redis(queue):
    sched, workers, client = queue
    workers.start()
    workers.start()
    first = sched.submit("alice", gated("g1"), estimate=5)
    assert sched.submit("alice", gated("g1")).id == first.id  # one active job per owner and kind
    until(lambda: first.state == RUNNING and first.progress == 0.5, "the first job reports its progress")
    assert first.status["pid"] != os.getpid()  # it runs in a worker
    other = sched.submit("bob", gated("g3"), estimate=5)
    until(lambda: other.state == RUNNING and other.progress == 0.5, "another owner's job runs on the second worker")
    sched.stop(other)
    until(lambda: not other.active, "the stopped job ends")
    assert other.state == DONE and other.result["stopped"] is True
    client.rpush("g1", 1)
    until(lambda: first.state == DONE, "the first job finishes")
    assert first.result == {"pid": first.status["pid"], "stopped": False} and first.progress == 1.0


def test_one_running_job_per_owner_the_next_waits_for_it(queue):
    sched, workers, client = queue
    workers.start()
    workers.start()
    first = sched.submit("carol", gated("h1"), estimate=5)
    until(lambda: first.state == RUNNING, "carol's first job runs")
    second = sched.submit("carol", JobSpec("test-gated-b", {"gate": "h2"}), estimate=5)
    someone = sched.submit("dan", gated("h3"), estimate=5)
    until(lambda: someone.state == RUNNING, "the free worker takes another owner's job")
    assert second.state == QUEUED and sched.position(second) >= 1  # carol's second waits for her first
    client.rpush("h1", 1)
    until(lambda: second.state == RUNNING, "carol's second job runs once her first has ended")
    client.rpush("h2", 1)
    client.rpush("h3", 1)
    until(lambda: second.state == DONE and someone.state == DONE, "both finish")


# A killed worker's job is found abandoned monitor + margin seconds after its last heartbeat, by a
# worker's maintenance or by the scheduler reading the job (server.rq_jobs.CLEANUP_EVERY): shorter
# than the defaults (5, 10, 10 s), which made each of the two tests below take 20-27 s.
QUICK = ("--monitor-seconds", "2", "--heartbeat-margin", "4", "--maintenance-seconds", "3")


def test_a_worker_killed_mid_job_its_job_runs_again_on_another_worker(queue):
    sched, workers, client = queue
    doomed = workers.start(*QUICK)
    job = sched.submit("dave", gated("k1"), estimate=5)
    until(lambda: job.state == RUNNING and job.status is not None, "the job runs on the first worker")
    first_pid = job.status["pid"]  # the work horse running it
    workers.kill(doomed, horse=first_pid)
    workers.start(*QUICK)
    until(lambda: job.status is not None and job.status["pid"] != first_pid, "the job runs again on another worker", 300)
    client.rpush("k1", 1)
    until(lambda: job.state == DONE, "the retried job finishes")
    assert job.result["pid"] != first_pid and job.error is None


def test_a_worker_killed_mid_job_with_no_retry_left_its_owner_is_told(queue):
    sched, workers, client = queue
    sched.retries = 0
    doomed = workers.start(*QUICK)
    job = sched.submit("erin", gated("k2"), estimate=5)
    until(lambda: job.state == RUNNING and job.status is not None, "the job runs")
    workers.kill(doomed, horse=job.status["pid"])
    workers.start(*QUICK)  # its maintenance finds the abandoned job (so does this process reading the job)
    until(lambda: job.state == FAILED, "the owner sees the job failed", 300)
    from server.rq_jobs import ABANDONED

    assert job.error == ABANDONED


def test_a_click_runs_before_the_waiting_automatic_runs(queue):
    """Clicks before automatic work (two RQ queues, a worker listens to the clicks' one first)."""
    sched, workers, client = queue
    workers.start()
    busy = sched.submit("zoe", gated("p0"), estimate=5)
    until(lambda: busy.state == RUNNING, "the only worker is busy")
    autos = [sched.submit(f"page{i}", gated(f"pa{i}"), estimate=5, automatic=True) for i in range(2)]
    click = sched.submit("carl", gated("pc"), estimate=5)
    assert sched.position(click) < min(sched.position(a) for a in autos)
    client.rpush("p0", 1)
    until(lambda: click.state == RUNNING, "the click runs next", 120)
    assert [a.state for a in autos] == [QUEUED, QUEUED]
    for gate in ("pc", "pa0", "pa1"):
        client.rpush(gate, 1)
    until(lambda: all(j.state == DONE for j in [click, *autos]), "all finish")


def test_a_click_goes_before_its_owners_waiting_automatic_run_never_beside_it(queue):
    sched, workers, client = queue
    workers.start()
    workers.start()
    first = sched.submit("olga", gated("o1"), estimate=5)
    until(lambda: first.state == RUNNING, "olga's first run")
    auto = sched.submit("olga", JobSpec("test-gated-b", {"gate": "o2"}), estimate=5, automatic=True)
    click = sched.submit("olga", JobSpec("test-gated-c", {"gate": "o3"}), estimate=5)
    auto = sched.active_job("olga", "test-gated-b")  # queued anew behind the click (a new id)
    client.rpush("o1", 1)
    until(lambda: click.state == RUNNING, "her click runs once her first run has ended")
    assert auto.state == QUEUED  # a free worker, but olga runs one job at a time
    client.rpush("o3", 1)
    until(lambda: auto.state == RUNNING, "then the page's automatic run")
    client.rpush("o2", 1)
    until(lambda: auto.state == DONE and click.state == DONE, "both finish")
    assert [j.kind for j in sched.jobs_of("olga")] == ["test-gated-b", "test-gated-c", "test-gated"]


def test_the_next_automatic_run_replaces_a_queued_one(queue):
    sched, workers, client = queue
    workers.start()
    busy = sched.submit("yan", gated("r0"), estimate=5)
    until(lambda: busy.state == RUNNING, "the only worker is busy")
    old = sched.submit("page", gated("r1"), estimate=5, automatic=True)
    assert sched.submit("page", gated("r1"), automatic=True).id == old.id  # the same run: kept
    new = sched.submit("page", gated("r2"), estimate=5, automatic=True)
    assert new.id != old.id and old.state == CANCELLED
    client.rpush("r0", 1)
    client.rpush("r2", 1)
    until(lambda: new.state == DONE, "the newer automatic run finishes")


def test_the_automatic_runs_of_an_owner_who_left_are_stopped_and_clicks_go_on(queue):
    sched, workers, client = queue
    workers.start()
    running = sched.submit("gone", gated("s1"), estimate=5, automatic=True)
    until(lambda: running.state == RUNNING, "gone's automatic run runs")
    waiting = sched.submit("gone", JobSpec("test-gated-b", {"gate": "s2"}), estimate=5, automatic=True)
    clicked = sched.submit("gone-too", gated("s3"), estimate=5)
    staying = sched.submit("here", JobSpec("test-gated-b", {"gate": "s4"}), estimate=5, automatic=True)
    stopped = sched.stop_automatic_of(lambda owner: owner == "gone")
    assert sorted(j.id for j in stopped) == sorted([running.id, waiting.id])
    assert waiting.state == CANCELLED
    until(lambda: running.state == DONE, "the running one stops at its next check")
    assert running.result["stopped"] is True
    client.rpush("s3", 1)
    client.rpush("s4", 1)
    until(lambda: clicked.state == DONE and staying.state == DONE, "the others finish")
