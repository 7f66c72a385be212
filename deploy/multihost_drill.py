"""Several machines on one: a class through a balancer host, two app hosts and a store + worker host,
and one app host dies mid-lesson. Does anything get lost?

    sudo python deploy/multihost_drill.py [--workers 2] [--kill-at 0.5] -- --sessions 40 --duration 60

Each "host" is a network namespace this drill creates (name prefix ``lmx-``), joined by a bridge, with
addresses from 198.18.0.0/15 only inside them (no default route: a host reaches only the others):
``bal`` 198.18.0.11 (deploy/serve --replicas 0 --remote ...: HAProxy), ``app1`` 198.18.0.12 and
``app2`` 198.18.0.13 (deploy/serve --no-balancer, one replica each), ``store`` 198.18.0.20
(redis-server and ``python -m server.worker`` processes), and ``cli`` 198.18.0.30: the drill
itself moves there and runs the class (bench/classroom_load.py's websocket students, a third
uploading, a quarter training) through the bridge, which sits in a namespace of its own: the
machine's own network is left as it was (``home_network_changed``). At ``--kill-at`` of the duration every process of ``app1`` gets SIGKILL; once
the balancer has taken it out, a worker running a job (a trainer's click if one runs) gets SIGKILL
too, with its work horse, and a new worker starts in its place (``--no-kill-worker``: not). The
students of the dead host reconnect as the frontend does (bench/classroom_reconnect.py): through
the balancer, to the surviving host. Prints ``name: value`` lines: the load test's figures, then
errors of the surviving host's students after the kill, the dead host's students that moved (and
those that could not reconnect), uploads and trained models lost (an upload or a finished training
whose owner's record is not in the store), what became of the killed worker's job
(``worker_kill_job``: finished_elsewhere / reported_failed / still_active / lost), the Train clicks'
runs finished / reported failed / cancelled / still queued or running after ``--jobs-wait`` / lost
(a student whose Train click's run ended and who has no run; a click whose run died with the dead
host and queued nothing is counted apart, ``training_clicks_cut_off_without_a_job``: the student's
page reopens on the other host without a run, as in a browser), the same students' automatic runs (pages' default
models), how long until the balancer stopped sending to the dead host, and p95 settle before and
after the kill. Every wait is
bounded; the namespaces, veths and bridge are removed at the end, also after a failure. Without root
or ``ip`` it says why and does nothing.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "deploy"))
sys.path.insert(0, str(ROOT))

from netns_hosts import ADDRESSES, Hosts, cannot_run, netns_list, network_here, wait_for  # noqa: E402

__all__ = ["cannot_run", "main"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--kill-at", type=float, default=0.5)
    parser.add_argument("--jobs-wait", type=float, default=300, help="seconds to wait for queued trainings at the end")
    parser.add_argument("--keep-logs", action="store_true", help="keep the run directory (logs) and say where")
    parser.add_argument("--no-kill-worker", dest="kill_worker", action="store_false",
                        help="do not SIGKILL a worker mid-job after the app host")
    parser.add_argument("--worker-heartbeat", nargs=3, type=int, metavar=("MONITOR", "MARGIN", "MAINTENANCE"),
                        help="the workers' heartbeat period, margin and maintenance period in seconds (server/worker.py;"
                             " default its own): shorter finds the killed worker's job sooner")
    ours, load_args = parser.parse_known_args()
    load_args = [a for a in load_args if a != "--"]
    reason = cannot_run()
    if reason:
        print(f"skipped: {reason}")
        return 0
    import classroom_load
    from classroom_reconnect import ReconnectingStudent
    from drill_accounting import busy_worker, job_states, kill_worker, owner_of, wait_for_jobs, worker_kill_outcome
    from classroom_common import TRAIN_BUTTONS
    from failover_drill import AttributedRecorder, server_status

    hosts, run_dir = Hosts(), Path(tempfile.mkdtemp(prefix="lmlab-multihost-"))
    timings = [] if ours.worker_heartbeat is None else [
        a for flag, v in zip(("--monitor-seconds", "--heartbeat-margin", "--maintenance-seconds"), ours.worker_heartbeat)
        for a in (flag, str(v))]
    store_url = f"redis://{ADDRESSES['store']}:6379/0"
    env = {"LMLAB_REDIS_URL": store_url, "PYTHONPATH": str(ROOT), "TORCH_NUM_THREADS": "1", "HOME": os.environ.get("HOME", "/root"),
           "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    home = network_here()
    changed = None
    try:
        hosts.create()
        changed = network_here() != home  # still in the machine's own namespace
        hosts.enter("cli")  # before any thread: the class, the store client and the waits all run from there
        redis = hosts.run("store", [shutil.which("redis-server") or "/usr/bin/redis-server", "--bind", ADDRESSES["store"],
                                    "--protected-mode", "no", "--save", "", "--appendonly", "no", "--dir", str(run_dir)],
                          env, run_dir / "redis.log")
        wait_for(run_dir / "redis.log", r"Ready to accept connections", redis, 60)
        for i in range(ours.workers):
            hosts.run("store", [sys.executable, "-m", "server.worker", *timings, "--name", f"store-w{i + 1}"], env,
                      run_dir / f"worker{i + 1}.log")
        apps = {}
        for host in ("app1", "app2"):
            process = hosts.run(host, [sys.executable, str(ROOT / "deploy" / "serve"), "--replicas", "1", "--no-balancer",
                                       "--replica-address", ADDRESSES[host], "--run-dir", str(run_dir / host)],
                                env, run_dir / f"{host}.log")
            apps[host] = process
        ports = {host: wait_for(run_dir / f"{host}.log", r"replicas ready on \S+ ports (\d+)", p).group(1)
                 for host, p in apps.items()}
        balancer = hosts.run("bal", [sys.executable, str(ROOT / "deploy" / "serve"), "--replicas", "0",
                                     "--remote", f"{ADDRESSES['app1']}:{ports['app1']}",
                                     "--remote", f"{ADDRESSES['app2']}:{ports['app2']}",
                                     "--host", ADDRESSES["bal"], "--port", "8501", "--run-dir", str(run_dir / "bal")],
                             env, run_dir / "bal.log")
        wait_for(run_dir / "bal.log", r"LM Lab on", balancer)
        url = f"http://{ADDRESSES['bal']}:8501"
        students: list = []
        trained: set[int] = set()  # students whose Train click's run ended (that run queued the job)
        cut_off: set[int] = set()  # students whose click's run died with its host: their page reopens without it

        class Tracked(ReconnectingStudent):
            def __init__(self, *args, **kwargs):
                super().__init__(*args, **kwargs)
                students.append(self)

            async def click(self, key: str, timeout: float | None = None) -> float | None:
                if key not in TRAIN_BUTTONS:
                    return await super().click(key, timeout)
                try:
                    seconds = await super().click(key, timeout)
                except ConnectionError:  # the websocket closed before the run ended and no reconnect took
                    cut_off.add(self.index)
                    raise
                except BaseException:  # a slow run, say: it ran, or it is lost
                    trained.add(self.index)
                    raise
                # None: the websocket closed before the run ended (its host died), the student reconnected
                (trained if seconds is not None else cut_off).add(self.index)
                return seconds

        classroom_load.WsStudent, classroom_load.Recorder = Tracked, AttributedRecorder
        figures: list[tuple[str, str]] = []

        async def drill(args) -> None:
            import redis as redis_client

            from server.rq_jobs import QueueScheduler

            client = redis_client.Redis.from_url(store_url)
            queue = QueueScheduler(client, 240)
            started = time.monotonic()
            task = asyncio.create_task(classroom_load.run_class(url, args))
            await asyncio.sleep(args.ramp + ours.kill_at * args.duration)
            killed = hosts.kill_host("app1")
            killed_at = time.monotonic()
            down = None
            while time.monotonic() - killed_at < 120:
                if await asyncio.to_thread(server_status, run_dir / "bal", "r1") == "DOWN":
                    down = time.monotonic() - killed_at
                    break
                await asyncio.sleep(0.1)
            victim = None
            if ours.kill_worker:  # then a worker mid-job; a new one takes its place (as a supervisor would)
                victim = await asyncio.to_thread(busy_worker, client, set())  # a click if one runs within 120 s
                if victim is not None:
                    kill_worker(victim[1])
                    hosts.run("store", [sys.executable, "-m", "server.worker", *timings, "--name", "store-w-new"], env,
                              run_dir / "worker-new.log")
            rec, elapsed = await task
            for name, value in rec.report(args.sessions, 0, args.duration, elapsed):
                print(f"{name}: {value}")
            figures.extend(await asyncio.to_thread(account, rec, queue, killed_at, started, killed, down, victim))

        def account(rec, queue, killed_at, started, killed, down, victim) -> list[tuple[str, str]]:
            from classroom_common import percentile
            from server.redis_store import RedisStore
            from server.rq_jobs import PREFIX
            from server.shared_store import NAMESPACE
            from server.uploads import kept_upload

            store = RedisStore(queue.redis, NAMESPACE, 2**40)
            owners = {s.index: owner_of(s.http.cookies.get("_streamlit_xsrf")) for s in students}
            uploaded = {a.session for a in rec.actions if a.kind.startswith("upload_")}
            uploads_lost = sum(1 for i in uploaded if owners.get(i) and kept_upload(store, owners[i]) is None)
            trainers = sorted({owners[i] for i in trained if owners.get(i)})
            # a click whose run was cut off may have queued its job before the host died: then it counts
            unsure = {owners[i] for i in cut_off - trained if owners.get(i)}
            queued = {o for o in unsure if any(not j.automatic for j in queue.jobs_of(o))}
            trainers = sorted(set(trainers) | queued)
            victim_owner = (queue.redis.hget(PREFIX + victim[2], "owner") or b"").decode() if victim else ""
            wait_for_jobs(queue, trainers + [victim_owner] * bool(victim_owner), ours.jobs_wait)
            clicks, autos, models_lost = job_states(queue, store, trainers)
            clicks["lost"] += sum(1 for i in trained if not owners.get(i))
            victim_auto = victim is not None and queue.redis.hget(PREFIX + victim[2], "automatic") == b"1"
            outcome = "no worker was running a job" if victim is None else worker_kill_outcome(queue, victim[2], victim[0])
            first = {s.index: s.first_replica for s in students}
            dead = [s for s in students if s.first_replica == "r1"]
            survivors = {i for i, r in first.items() if r == "r2"}
            after = Counter(k for s, k, when, _ in rec.all_errors if s in survivors and when >= killed_at)
            settle = {"before": [a.seconds for a in rec.actions if rec.t0 + a.started < killed_at],
                      "after": [a.seconds for a in rec.actions if rec.t0 + a.started >= killed_at]}
            moved = [s for s in dead if s.moved_to not in (None, "r1")]
            back = [t for s in moved for t in s.reconnect_seconds]
            return [("killed", f"app1 ({killed} processes) at {killed_at - started:.1f} s"),
                    ("balancer_stopped_sending_after_s", "not within 120 s" if down is None else f"{down:.2f}"),
                    ("surviving_host_students", str(len(survivors))),
                    ("surviving_host_errors_after_kill", str(sum(after.values())) + (f" {dict(after)}" if after else "")),
                    ("dead_host_students", str(len(dead))), ("moved_students", str(len(moved))),
                    ("moved_reconnect_p95_s", f"{percentile(back, 95):.2f}" if back else "n/a"),
                    ("dead_host_students_disconnected", str(sum(1 for s in dead if s.gave_up))),
                    ("dead_host_students_not_moved", str(sum(1 for s in dead if s not in moved and not s.gave_up))),
                    ("uploads", str(len(uploaded))), ("uploads_lost", str(uploads_lost)),
                    ("worker_killed", "none" if victim is None else
                     f"{victim[0]} ({'automatic run' if victim_auto else 'click'} {victim[2][:8]})"),
                    ("worker_kill_job", outcome),
                    ("training_jobs_finished", str(clicks["finished"])),
                    ("training_jobs_reported_failed", str(clicks["reported_failed"])),
                    ("training_jobs_cancelled", str(clicks["cancelled"])),
                    ("training_jobs_still_queued_or_running", str(clicks["unfinished"])),
                    ("training_jobs_lost", str(clicks["lost"])),
                    ("training_clicks_cut_off_without_a_job", str(len(unsure - queued))), ("trained_models_lost", str(models_lost)),
                    ("automatic_runs_of_trainers", " ".join(f"{k} {v}" for k, v in sorted(autos.items())) or "0"),
                    *((f"settle_p95_{k}_kill_s", f"{percentile(v, 95):.2f}" if v else "n/a") for k, v in settle.items())]

        classroom_load._measure = lambda url_, pids, args, log: asyncio.run(drill(args))
        defaults = {"--sessions": "40", "--duration": "60", "--browsers": "0", "--upload-share": "0.33",
                    "--rest-before": "0"}
        given = list(load_args) + ([] if "--quick-training" in load_args else ["--quick-training"])
        for flag, value in defaults.items():
            if flag not in given:
                given += [flag, value]
        sessions = int(given[given.index("--sessions") + 1])
        if "--trainers" not in given:
            given += ["--trainers", str(max(1, sessions // 4))]
        classroom_load.main(["--url", url, *given])
        for name, value in figures:
            print(f"{name}: {value}")
    finally:
        hosts.leave()
        hosts.remove()
        print(f"home_network_changed: {changed or network_here() != home}")
        print(f"namespaces_removed: {not any(h.startswith(hosts.tag) for h in netns_list())}")
        if ours.keep_logs:
            print(f"logs: {run_dir}")
        else:
            shutil.rmtree(run_dir, ignore_errors=True)
            print(f"run_dir_removed: {not run_dir.exists()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
