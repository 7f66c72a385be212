"""deploy/serve run for real by the tests (tests/test_deploy*.py): the command loaded as a module,
`deploy/serve --replicas N` started and stopped, HAProxy required (skip, or fail in CI)."""
from __future__ import annotations

import csv
import importlib.util
import io
import os
import re
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from importlib.machinery import SourceFileLoader
from pathlib import Path

import pytest

from tests import browser_server  # noqa: F401  (puts bench/ on the path)
from streamlit_process import free_port  # noqa: E402  (bench/, on the path since tests.browser_server)

ROOT = Path(__file__).resolve().parents[1]
SERVE = ROOT / "deploy" / "serve"
COOKIE = "lmlab_replica"


def _load_serve():
    loader = SourceFileLoader("lmlab_deploy_serve", str(SERVE))
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(loader.name, loader))
    loader.exec_module(module)
    return module


serve = _load_serve()


def require_haproxy() -> str:
    found = serve.find_haproxy()
    if found is None:
        reason = "deploy tests need HAProxy (apt-get install haproxy)"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    return found


@dataclass
class Served:
    """A running `deploy/serve`: its process, URL, replica pids by cookie value, run directory."""
    process: subprocess.Popen
    url: str
    run_dir: Path
    replicas: dict[str, int] = field(default_factory=dict)

    def output(self) -> str:
        return (self.run_dir / "serve.out").read_text()

    def server_stats(self) -> dict[str, dict[str, str]]:
        """HAProxy's own view of each replica (status UP/DOWN, scur = open connections), by server name."""
        with socket.socket(socket.AF_UNIX) as s:
            s.connect(str(self.run_dir / "haproxy.sock"))
            s.sendall(b"show stat\n")
            text = s.makefile().read()
        rows = csv.DictReader(io.StringIO(text.lstrip("# ")))
        return {r["svname"]: r for r in rows if r["pxname"] == "replicas" and r["svname"] in self.replicas}


def start_serve(run_dir: Path, replicas: int) -> Served:
    run_dir.mkdir(parents=True, exist_ok=True)
    port = free_port()
    out = open(run_dir / "serve.out", "w")
    process = subprocess.Popen([sys.executable, str(SERVE), "--replicas", str(replicas), "--port", str(port),
                                "--host", "127.0.0.1", "--run-dir", str(run_dir)],
                               cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    served = Served(process, f"http://127.0.0.1:{port}", run_dir)
    deadline = time.monotonic() + 300
    while "LM Lab on" not in served.output():
        if process.poll() is not None or time.monotonic() > deadline:
            stop_serve(served)
            raise RuntimeError(f"deploy/serve did not come up:\n{served.output()}")
        time.sleep(0.1)
    served.replicas = {name: int(pid) for name, pid in re.findall(r"replica (r\d+) pid (\d+)", served.output())}
    return served


def stop_serve(served: Served, sig: int = signal.SIGTERM) -> None:
    if served.process.poll() is None:
        os.kill(served.process.pid, sig)
        try:
            served.process.wait(60)
        except subprocess.TimeoutExpired:
            os.killpg(served.process.pid, signal.SIGKILL)
            served.process.wait()
