"""Several machines on one: a class through a balancer host, two app hosts and a store + worker host,
and one app host dies mid-lesson. Does anything get lost?

    sudo python deploy/multihost_drill.py [--workers 2] [--kill-at 0.5] -- --sessions 40 --duration 60

Each "host" is a network namespace this drill creates (name prefix ``lmx-``), joined by a bridge, with
addresses from 198.18.0.0/15 only inside them (no default route: a host reaches only the others):
``bal`` 198.18.0.11 (deploy/serve --replicas 0 --remote ...: HAProxy), ``app1`` 198.18.0.12 and
``app2`` 198.18.0.13 (deploy/serve --no-balancer, one replica each), ``store`` 198.18.0.20
(redis-server and ``python -m server.worker`` processes). The class (bench/classroom_load.py's
websocket students, a third uploading, a quarter training) runs from this machine's own namespace
through the bridge. At ``--kill-at`` of the duration every process of ``app1`` gets SIGKILL. Prints
``name: value`` lines: the load test's figures, then errors of the surviving host's students, the
students of the dead host, uploads and trained models lost (an upload or a finished training whose
owner's record is not in the store), the training jobs of the students who pressed Train (pages'
automatic runs included) finished / reported failed / cancelled / still running after ``--jobs-wait``
/ lost (no record of a job the student started), how long until the
balancer stopped sending to the dead host, and p95 settle before and after the kill. Every wait is
bounded; the namespaces, veths and bridge are removed at the end, also after a failure. Without root
or ``ip`` it says why and does nothing.
"""
from __future__ import annotations

import argparse
import asyncio
import hashlib
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))

ADDRESSES = {"bal": "198.18.0.11", "app1": "198.18.0.12", "app2": "198.18.0.13", "store": "198.18.0.20"}
BRIDGE_ADDRESS = "198.18.0.1"
START_SECONDS = 600  # at most, for a host's processes to be ready


def cannot_run() -> str | None:
    """Why namespaces cannot be made here, or None."""
    if os.geteuid() != 0:
        return "network namespaces need root"
    if shutil.which("ip") is None:
        return "the ip command (iproute2) is missing"
    for binary in ("redis-server", "haproxy"):
        if shutil.which(binary) is None and not Path(f"/usr/sbin/{binary}").exists():
            return f"{binary} is not installed"
    return None


def sh(*args: str) -> None:
    subprocess.run(args, check=True, capture_output=True, timeout=30)


class Hosts:
    """The namespaces and their bridge; :meth:`remove` deletes all of them (idempotent)."""

    def __init__(self) -> None:
        self.tag = "lmx" + secrets.token_hex(2)
        self.bridge, self.made = f"{self.tag}br", []
        self.processes: list[subprocess.Popen] = []

    def ns(self, host: str) -> str:
        return f"{self.tag}-{host}"

    def create(self) -> None:
        sh("ip", "link", "add", self.bridge, "type", "bridge")
        self.made.append(("link", self.bridge))
        sh("ip", "link", "set", self.bridge, "up")
        sh("ip", "addr", "add", f"{BRIDGE_ADDRESS}/24", "dev", self.bridge)
        for host, address in ADDRESSES.items():
            ns, veth = self.ns(host), f"{self.tag}{host}"[:15]
            sh("ip", "netns", "add", ns)
            self.made.append(("netns", ns))
            sh("ip", "link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", ns)
            sh("ip", "link", "set", veth, "master", self.bridge)
            sh("ip", "link", "set", veth, "up")
            sh("ip", "netns", "exec", ns, "ip", "link", "set", "lo", "up")
            sh("ip", "netns", "exec", ns, "ip", "link", "set", "eth0", "up")
            sh("ip", "netns", "exec", ns, "ip", "addr", "add", f"{address}/24", "dev", "eth0")

    def run(self, host: str, argv: list[str], env: dict[str, str], log: Path) -> subprocess.Popen:
        process = subprocess.Popen(["ip", "netns", "exec", self.ns(host), "env", *(f"{k}={v}" for k, v in env.items()),
                                    *argv], cwd=ROOT, stdout=open(log, "wb"), stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL, start_new_session=True)
        self.processes.append(process)
        return process

    def kill_host(self, host: str) -> int:
        """SIGKILL every process inside the host's namespace; how many."""
        found = subprocess.run(["ip", "netns", "pids", self.ns(host)], capture_output=True, text=True, timeout=30)
        pids = [int(p) for p in found.stdout.split()]
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        return len(pids)

    def remove(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                try:
                    os.killpg(process.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        deadline = time.monotonic() + 20
        for process in self.processes:
            try:
                process.wait(max(deadline - time.monotonic(), 0.1))
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
        for host in ADDRESSES:  # anything left inside (work horses, replicas' children)
            if ("netns", self.ns(host)) in self.made:
                self.kill_host(host)
        for kind, name in reversed(self.made):
            cmd = ["ip", "netns", "del", name] if kind == "netns" else ["ip", "link", "del", name]
            subprocess.run(cmd, capture_output=True, timeout=30)
        self.made.clear()


def wait_for(log: Path, pattern: str, process: subprocess.Popen, seconds: float = START_SECONDS) -> re.Match:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = re.search(pattern, log.read_text(errors="replace")) if log.exists() else None
        if found:
            return found
        if process.poll() is not None:
            raise RuntimeError(f"{log.name}: exited with {process.returncode}:\n{log.read_text(errors='replace')[-2000:]}")
        time.sleep(0.5)
    raise RuntimeError(f"{log.name}: no {pattern!r} within {seconds:.0f} s")


def owner_of(cookie: str | None) -> str | None:
    """The app's owner key for a browser's XSRF cookie (server/owner.py)."""
    if not cookie:
        return None
    from streamlit.web.server.starlette.starlette_app_utils import decode_xsrf_token_string

    return "browser-" + hashlib.sha256(decode_xsrf_token_string(cookie)[0]).hexdigest()[:20]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--kill-at", type=float, default=0.5)
    parser.add_argument("--jobs-wait", type=float, default=300, help="seconds to wait for queued trainings at the end")
    ours, load_args = parser.parse_known_args()
    load_args = [a for a in load_args if a != "--"]
    reason = cannot_run()
    if reason:
        print(f"skipped: {reason}")
        return 0
    import classroom_load
    from classroom_ws import WsStudent
    sys.path.insert(0, str(ROOT / "deploy"))
    from failover_drill import AttributedRecorder, server_status

    hosts, run_dir = Hosts(), Path(tempfile.mkdtemp(prefix="lmlab-multihost-"))
    store_url = f"redis://{ADDRESSES['store']}:6379/0"
    env = {"LMLAB_REDIS_URL": store_url, "PYTHONPATH": str(ROOT), "TORCH_NUM_THREADS": "1", "HOME": os.environ.get("HOME", "/root"),
           "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    try:
        hosts.create()
        redis = hosts.run("store", [shutil.which("redis-server") or "/usr/bin/redis-server", "--bind", ADDRESSES["store"],
                                    "--protected-mode", "no", "--save", "", "--appendonly", "no", "--dir", str(run_dir)],
                          env, run_dir / "redis.log")
        wait_for(run_dir / "redis.log", r"Ready to accept connections", redis, 60)
        for i in range(ours.workers):
            hosts.run("store", [sys.executable, "-m", "server.worker", "--name", f"store-w{i + 1}"], env,
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

        class Tracked(WsStudent):
            def __init__(self, *args, **kwargs):
                super().__init__(*args, **kwargs)
                students.append(self)

        classroom_load.WsStudent, classroom_load.Recorder = Tracked, AttributedRecorder
        figures: list[tuple[str, str]] = []

        async def drill(args) -> None:
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
            rec, elapsed = await task
            for name, value in rec.report(args.sessions, 0, args.duration, elapsed):
                print(f"{name}: {value}")
            figures.extend(account(rec, killed_at, started, killed, down, args))

        def account(rec, killed_at, started, killed, down, args) -> list[tuple[str, str]]:
            import redis as redis_client

            from server.redis_store import RedisStore
            from server.rq_jobs import QueueScheduler
            from server.scheduler import DONE, FAILED
            from server.shared_store import NAMESPACE
            from server.uploads import kept_upload

            client = redis_client.Redis.from_url(store_url)
            store, queue = RedisStore(client, NAMESPACE, 2**40), QueueScheduler(client, 240)
            on = {s.index: rec.replicas.get(s.index) for s in students}
            owners = {s.index: owner_of(s.http.cookies.get("_streamlit_xsrf")) for s in students}
            uploaded = {a.session for a in rec.actions if a.kind.startswith("upload_")}
            uploads_lost = sum(1 for i in uploaded if owners.get(i) and kept_upload(store, owners[i]) is None)
            trainers = {a.session for a in rec.actions if a.kind == "train"}
            deadline = time.monotonic() + ours.jobs_wait
            while time.monotonic() < deadline and any(j.active for i in trainers if owners.get(i)
                                                      for j in queue.jobs_of(owners[i])):
                time.sleep(2)
            states = Counter()
            models_lost = 0
            for i in trainers:
                jobs = queue.jobs_of(owners[i]) if owners.get(i) else []
                if not jobs:
                    states["lost"] += 1
                for job in jobs:
                    state = job.state
                    states["finished" if state == DONE else "reported_failed" if state == FAILED else
                           "cancelled" if state == "cancelled" else "unfinished"] += 1
                    made = ("seq2seq:",) if job.kind == "seq2seq" else ("lm:",)  # what the runner keeps
                    if state == DONE and not any(k.startswith(made) for k in store.tagged("owner:" + owners[i])):
                        models_lost += 1
            survivors = {i for i, r in on.items() if r == "r2"}
            after = Counter(k for s, k, when, _ in rec.all_errors if s in survivors and when >= killed_at)
            settle = {"before": [a.seconds for a in rec.actions if rec.t0 + a.started < killed_at],
                      "after": [a.seconds for a in rec.actions if rec.t0 + a.started >= killed_at]}
            from classroom_common import percentile
            return [("killed", f"app1 ({killed} processes) at {killed_at - started:.1f} s"),
                    ("balancer_stopped_sending_after_s", "not within 120 s" if down is None else f"{down:.2f}"),
                    ("surviving_host_students", str(len(survivors))),
                    ("surviving_host_errors_after_kill", str(sum(after.values())) + (f" {dict(after)}" if after else "")),
                    # the websocket clients do not reconnect (a browser does, to the surviving host)
                    ("dead_host_students_disconnected", str(sum(1 for r in on.values() if r == "r1"))),
                    ("uploads", str(len(uploaded))), ("uploads_lost", str(uploads_lost)),
                    ("training_jobs_finished", str(states["finished"])),
                    ("training_jobs_reported_failed", str(states["reported_failed"])),
                    ("training_jobs_cancelled", str(states["cancelled"])),
                    ("training_jobs_still_queued_or_running", str(states["unfinished"])),
                    ("training_jobs_lost", str(states["lost"])), ("trained_models_lost", str(models_lost)),
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
        hosts.remove()
        print(f"namespaces_removed: {not any(h.startswith(hosts.tag) for h in _netns_list())}")
    return 0


def _netns_list() -> list[str]:
    found = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, timeout=30)
    return [line.split()[0] for line in found.stdout.splitlines() if line.strip()]


if __name__ == "__main__":
    sys.exit(main())
