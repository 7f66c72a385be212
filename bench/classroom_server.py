"""The server a classroom bench runs against: ``streamlit run app.py`` started here, and what it says
about the uploads it still holds. Used by bench/classroom_load.py and bench/classroom_capacity.py."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

from classroom_common import ROOT
from ui.memory import server_env

SERVER_FLAGS = ["--server.headless", "true", "--global.developmentMode", "false", "--server.fileWatcherType", "none",
                "--browser.gatherUsageStats", "false"]


@contextmanager
def local_server(extra_env: dict[str, str] | None = None):
    """``streamlit run app.py`` on a free port (flags of Streamlit's e2e tests), with the allocator
    setting deploy/serve gives a server (ui/memory.py ``server_env``) and ``extra_env`` (the server's
    alone, e.g. an allocator to preload); yields (url, pid, log)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    log = tempfile.NamedTemporaryFile("w+", prefix="classroom-server-", suffix=".log", delete=False)
    process = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
                                "--server.address", "127.0.0.1", *SERVER_FLAGS], cwd=ROOT, stdout=log,
                               stderr=subprocess.STDOUT, env={**server_env(), **os.environ, **(extra_env or {})})
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 120
        while True:
            try:
                if urllib.request.urlopen(f"{url}/_stcore/health", timeout=2).read() == b"ok":
                    break
            except OSError:
                pass
            if process.poll() is not None or time.time() > deadline:
                raise RuntimeError(f"streamlit did not become healthy; log: {log.name}")
            time.sleep(0.3)
        yield url, process.pid, Path(log.name)
    finally:
        process.terminate()
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


def uploaded_bytes(url: str) -> int | None:
    """Bytes of uploaded files the server holds (its /_stcore/metrics), None if it does not say."""
    try:
        text = urllib.request.urlopen(f"{url}/_stcore/metrics", timeout=10).read().decode()
    except OSError:
        return None
    held = [line.rsplit(" ", 1)[1] for line in text.splitlines()
            if line.startswith('cache_memory_bytes{cache_type="UploadedFileManager"')]
    return int(float(held[0])) if held else 0


def uploads_gone_after(url: str, closed_at: float, limit: float = 60.0) -> str:
    """Seconds from ``closed_at`` until the server holds no uploaded file (polled), or 'never'."""
    while (now := time.monotonic()) - closed_at < limit:
        held = uploaded_bytes(url)
        if held is None:
            return "unknown"
        if held == 0:
            return f"{now - closed_at:.1f}"
        time.sleep(0.5)
    return f"never (within {limit:.0f} s)"
