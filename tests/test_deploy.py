"""deploy/serve: several app processes behind HAProxy with cookie affinity, run for real.

Its browser test (two students, one replica killed under one of them) is tests/test_deploy_browser.py,
with the helpers here. Skipped with a reason where HAProxy is not
installed, except in CI (CI=true), where .ci/run installs it.
"""
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

from server.allocator import JEMALLOC_CONF, server_env
from tests.browser_server import ROOT  # puts bench/ on the path (this file alone failed to import without it)
from streamlit_process import free_port  # noqa: E402  (bench/)

SERVE = ROOT / "deploy" / "serve"
COMPOSE_CFG = ROOT / "deploy" / "haproxy.compose.cfg"
COOKIE = "lmlab_replica"
APP_PACKAGES = ("app_pages", "server", "ui")  # what streamlit runs: app.py, its pages and its helpers


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


def _descendants(pid: int) -> set[int]:
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


HANG_GUARD_S = 600  # a wait that never ends fails here: never a claim about how fast anything is


def wait_until(done, poll, failure) -> float:
    """Call ``poll`` until ``done()``; the monotonic time it was first seen done. Fails with
    ``failure()`` only after HANG_GUARD_S (a test that would otherwise hang)."""
    give_up = time.monotonic() + HANG_GUARD_S
    while not done():
        assert time.monotonic() < give_up, failure()
        poll()
    return time.monotonic()


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


# ------------------------------------------------------------------ config and command, no browser

def test_config_from_the_template_is_accepted_by_haproxy(tmp_path):
    haproxy = require_haproxy()
    config = tmp_path / "haproxy.cfg"
    config.write_text(serve.render_config("127.0.0.1:8501", str(tmp_path / "sock"), [40001, 40002, 40003]))
    check = subprocess.run([haproxy, "-c", "-f", str(config)], capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    text = config.read_text()
    assert re.search(rf"^\s*cookie {COOKIE} insert indirect nocache", text, re.M)
    assert re.findall(r"^\s*server (r\d) 127\.0\.0\.1:(\d+) cookie (r\d)$", text, re.M) == [
        ("r1", "40001", "r1"), ("r2", "40002", "r2"), ("r3", "40003", "r3")]
    assert not re.search(r"^\s*balance\s+source", text, re.M)  # one NAT address = one replica: never hash addresses


def test_compose_config_is_valid_and_matches_the_template(tmp_path):
    """The compose config differs from the template only in how it finds the replicas."""
    haproxy = require_haproxy()
    check = subprocess.run([haproxy, "-c", "-f", str(COMPOSE_CFG)], capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr

    def directives(text: str) -> set[str]:
        lines = {re.sub(r"\s+", " ", line.split("#")[0]).strip() for line in text.splitlines()}
        return {line for line in lines if line and not line.startswith(("server", "bind", "stats socket", "$"))}

    compose = directives(COMPOSE_CFG.read_text())
    missing = [d for d in directives((ROOT / "deploy" / "haproxy.cfg.in").read_text())
               if not any(c == d or c.startswith(d + " ") for c in compose)]  # compose may add e.g. "dynamic"
    assert missing == []


def test_replicas_share_one_server_s_memory_budget_and_training_slots(monkeypatch):
    monkeypatch.setenv("LMLAB_MEMORY_MB", "1000")
    monkeypatch.setenv("LMLAB_TRAINING_SLOTS", "6")
    env = serve.replica_env(3)
    assert (env["LMLAB_MEMORY_MB"], env["LMLAB_TRAINING_SLOTS"]) == ("333", "2")
    monkeypatch.setenv("LMLAB_TRAINING_SLOTS", "1")
    assert serve.replica_env(4)["LMLAB_TRAINING_SLOTS"] == "1"  # every replica can train


def test_replicas_start_with_the_server_allocator_setting_unless_the_caller_set_one(monkeypatch):
    monkeypatch.delenv("MALLOC_ARENA_MAX", raising=False)
    assert serve.replica_env(2)["MALLOC_ARENA_MAX"] == "2"
    monkeypatch.setenv("MALLOC_ARENA_MAX", "4")
    assert serve.replica_env(2)["MALLOC_ARENA_MAX"] == "4"
    from server import allocator as memory

    monkeypatch.setattr(memory, "jemalloc_path", lambda: "/lib/libjemalloc.so.2")
    for name in ("LD_PRELOAD", "PYTHONMALLOC", "MALLOC_CONF"):
        monkeypatch.delenv(name, raising=False)
    assert serve.replica_env(2)["LD_PRELOAD"] == "/lib/libjemalloc.so.2"
    monkeypatch.setenv("PYTHONMALLOC", "pymalloc")
    assert "LD_PRELOAD" not in serve.replica_env(2)
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text()
    assert "libjemalloc2" in dockerfile
    for name, value in {**server_env({}), "LD_PRELOAD": "libjemalloc.so.2", "PYTHONMALLOC": "malloc",
                        "MALLOC_CONF": JEMALLOC_CONF}.items():
        assert f"{name}={value}" in dockerfile


def test_container_recipe_copies_what_the_app_imports():
    """deploy/Dockerfile copies an explicit list: every top-level package of this repository that the
    app imports (and the samples, the Streamlit config) must be on it; the replica flags match serve's."""
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text()
    copied = set(re.findall(r"^COPY (\S+) ", dockerfile, re.M))
    local = {p.name for p in ROOT.iterdir() if p.is_dir() and any(p.glob("*.py"))} - {"tests", "bench", "deploy"}
    sources = [ROOT / "app.py", *(f for package in APP_PACKAGES for f in (ROOT / package).rglob("*.py"))]
    imported = {m for f in sources for m in re.findall(r"^\s*(?:from|import) (\w+)", f.read_text(), re.M)}
    assert {"lmcore", "server", "ui"} <= imported & local  # what the app's code is known to import
    assert (imported & local) | {*APP_PACKAGES, "assets", ".streamlit", "app.py"} <= copied
    flags = " ".join(serve.replica_command(8501)[3:])
    for flag in re.findall(r"--(?!server\.(?:port|address))[\w.]+ \S+", flags):
        assert '"{}", "{}"'.format(*flag.split()) in dockerfile, flag


def test_serve_is_an_executable_command():
    assert os.access(SERVE, os.X_OK)
    result = subprocess.run([str(SERVE), "--help"], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert result.returncode == 0 and "--replicas" in result.stdout and "--port" in result.stdout


@pytest.mark.parametrize("how", ["SIGTERM", "Ctrl-C"])
def test_a_signal_stops_every_process(tmp_path, how):
    require_haproxy()
    served = start_serve(tmp_path / "run", replicas=2)
    children = _descendants(served.process.pid)
    assert set(served.replicas.values()) <= children and len(children) >= 3  # 2 replicas + haproxy
    port = int(served.url.rsplit(":", 1)[1])
    if how == "SIGTERM":
        os.kill(served.process.pid, signal.SIGTERM)
    else:  # a terminal sends SIGINT to the whole foreground process group
        os.killpg(served.process.pid, signal.SIGINT)
    assert served.process.wait(60) == 0, served.output()
    assert [pid for pid in children if _alive(pid)] == []
    with socket.socket() as s:
        assert s.connect_ex(("127.0.0.1", port)) != 0
    assert "stopped" in served.output()


def test_a_failed_jemalloc_install_is_reported_and_the_class_still_starts(monkeypatch, capsys):
    from server import allocator as memory

    def failing_install(package):
        raise subprocess.CalledProcessError(100, ["apt-get", "install", package])

    monkeypatch.setattr(memory, "jemalloc_path", lambda: None)
    monkeypatch.setattr(serve, "apt_install", failing_install)
    serve.ensure_jemalloc()  # returns: the replicas run on glibc's allocator
    out = capsys.readouterr().out
    assert "installing libjemalloc2 failed" in out and "will keep more memory" in out
