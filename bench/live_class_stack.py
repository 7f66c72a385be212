"""The servers of the live-class bench (bench/live_class.py): ``deploy/serve --replicas N --store redis``
on free ports of 127.0.0.1, its processes' CPU, its Redis stopped and started again, its logs read.

Everything started here is stopped by :meth:`Serve.stop` (also after an error or Ctrl-C): deploy/serve
stops its replicas, HAProxy and its own Redis; a Redis started again by :meth:`Serve.restart_redis` is
this module's child and stopped here.
"""
from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
START_TIMEOUT = 300.0  # seconds for deploy/serve to start two replicas (torch imports) and warm them


class Serve:
    """``deploy/serve`` as a child process, its run files in ``run_dir``."""

    def __init__(self, run_dir: Path, replicas: int = 2) -> None:
        self.run_dir, self.replicas = run_dir, replicas
        self.process: subprocess.Popen | None = None
        self.url = ""
        self.pids: dict[str, int] = {}  # r1, r2, ..., redis, haproxy
        self.redis_port = 0
        self.redis_argv: list[str] = []
        self.redis_again: subprocess.Popen | None = None  # the Redis started again after an outage

    def start(self) -> None:
        """Start deploy/serve and wait (bounded) until it says the app is up."""
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        out = self.run_dir / "serve.out"
        self.process = subprocess.Popen(
            [sys.executable, str(ROOT / "deploy" / "serve"), "--replicas", str(self.replicas), "--store", "redis",
             "--port", str(port), "--host", "127.0.0.1", "--run-dir", str(self.run_dir)],
            cwd=ROOT, stdout=open(out, "w"), stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            env={k: v for k, v in os.environ.items() if k != "LMLAB_REDIS_URL"})  # its own Redis
        deadline = time.monotonic() + START_TIMEOUT
        while "LM Lab on" not in out.read_text():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"deploy/serve did not start:\n{out.read_text()[-2000:]}")
            time.sleep(0.5)
        text = out.read_text()
        self.url = f"http://127.0.0.1:{port}"
        self.pids = {name: int(pid) for name, pid in re.findall(r"replica (r\d+) pid (\d+)", text)}
        redis = re.search(r"redis-server pid (\d+) on redis://127\.0\.0\.1:(\d+)", text)
        if redis is None:
            raise RuntimeError(f"deploy/serve started no Redis:\n{text[-2000:]}")
        self.pids["redis"], self.redis_port = int(redis.group(1)), int(redis.group(2))
        self.redis_argv = self._redis_command()
        haproxy = re.search(r"haproxy pid (\d+)", text)
        if haproxy:
            self.pids["haproxy"] = int(haproxy.group(1))

    def server_pids(self) -> list[int]:
        """The replicas and Redis: the servers whose CPU a class costs."""
        return [pid for name, pid in self.pids.items() if name != "haproxy"]

    def cpu_seconds(self, pids: list[int]) -> float:
        """User + system CPU seconds the processes have used so far (a gone process counts 0)."""
        total = 0.0
        for pid in pids:
            try:
                times = psutil.Process(pid).cpu_times()
                total += times.user + times.system
            except psutil.NoSuchProcess:
                pass
        return total

    def wait_quiet(self, limit: float = 240.0, below: float = 0.05) -> float:
        """Wait until the servers have finished their start-up work (the replicas' warm-up,
        server/warmup.py): first its wait for an idle server (``IDLE_SECONDS`` after deploy/serve's
        first run of the app, during which the CPU is quiet but the heavy steps have not begun:
        without it they ran while the students waited, and were counted as the class's idle cost),
        then under ``below`` cores for 2 s, at most ``limit`` s. Returns the seconds waited."""
        from server.warmup import IDLE_SECONDS

        start = time.monotonic()
        time.sleep(IDLE_SECONDS + 2)
        pids = self.server_pids()
        while time.monotonic() - start < limit:
            cpu = self.cpu_seconds(pids)
            time.sleep(2.0)
            if (self.cpu_seconds(pids) - cpu) / 2.0 < below:
                break
        return time.monotonic() - start

    # ------------------------------------------------------------------ Redis goes away
    def _redis_command(self) -> list[str]:
        """The running Redis's own command with its settings (its process title hides its arguments)."""
        import redis

        client = redis.Redis(port=self.redis_port, socket_timeout=5)
        try:
            settings = {k: client.config_get(k)[k] for k in ("port", "bind", "dir", "save", "appendonly", "appendfsync")}
        finally:
            client.close()
        command = [psutil.Process(self.pids["redis"]).cmdline()[0].split()[0]]  # (exe: redis-check-rdb, a link)
        for name, value in settings.items():
            command += [f"--{name}", value]
        return command

    def stop_redis(self) -> None:
        """SIGTERM to the Redis (it writes its append-only file, if any, and exits): a restart."""
        process = psutil.Process(self.pids["redis"])
        process.send_signal(signal.SIGTERM)
        process.wait(30)

    def restart_redis(self) -> None:
        """The same redis-server command again (same port, same data folder); bounded wait for PING."""
        self.redis_again = subprocess.Popen(self.redis_argv, cwd=self.run_dir, stdin=subprocess.DEVNULL,
                                            stdout=open(self.run_dir / "redis-again.log", "wb"), stderr=subprocess.STDOUT)
        self.pids["redis"] = self.redis_again.pid
        deadline = time.monotonic() + 30
        while not _pong(self.redis_port):
            if self.redis_again.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("redis-server did not start again")
            time.sleep(0.05)

    # ------------------------------------------------------------------ logs and the end
    def tracebacks(self) -> int:
        """How many times the replicas' logs say "Traceback"."""
        return sum(path.read_text(errors="replace").count("Traceback") for path in self.run_dir.glob("r*.log"))

    def stop(self) -> None:
        """Stop deploy/serve (it stops what it started) and the Redis started again here."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.redis_again is not None and self.redis_again.poll() is None:
            self.redis_again.terminate()
            try:
                self.redis_again.wait(30)
            except subprocess.TimeoutExpired:
                self.redis_again.kill()
                self.redis_again.wait()


def _pong(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
            s.sendall(b"PING\r\n")
            return s.recv(16).startswith(b"+PONG")
    except OSError:
        return False
