"""``streamlit run app.py`` as a child process for the benches and the browser tests: a free local
port, the flags of Streamlit's own end-to-end tests, ready once ``/_stcore/health`` says ok, stopped
(SIGTERM, then SIGKILL) on leaving the ``with`` block."""
from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import IO

SERVER_FLAGS = ["--server.headless", "true", "--global.developmentMode", "false", "--server.fileWatcherType", "none",
                "--browser.gatherUsageStats", "false"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def healthy(url: str) -> bool:
    try:
        return urllib.request.urlopen(f"{url}/_stcore/health", timeout=2).read() == b"ok"
    except OSError:
        return False


@contextmanager
def streamlit_process(cwd: Path, env: Mapping[str, str] | None = None, stdout: IO | int = subprocess.DEVNULL,
                      timeout: float = 120.0, stop_grace: float = 15.0, hint: str = "", script: str = "app.py"
                      ) -> Iterator[tuple[str, subprocess.Popen]]:
    """Start the app in ``cwd`` (``script``, output to ``stdout``, environment ``env``: None inherits ours); yield
    (its URL, the process) once healthy. RuntimeError (ending with ``hint``, e.g. where its log is) if
    it exits or is not healthy within ``timeout`` s."""
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "streamlit", "run", script, "--server.port", str(port),
                                "--server.address", "127.0.0.1", *SERVER_FLAGS], cwd=cwd, stdout=stdout,
                               stderr=subprocess.STDOUT, env=None if env is None else dict(env))
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout
        while not healthy(url):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"streamlit in {cwd} did not become healthy within {timeout:.0f} s {hint}".rstrip())
            time.sleep(0.3)
        yield url, process
    finally:
        process.terminate()
        try:
            process.wait(stop_grace)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
