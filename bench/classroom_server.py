"""The server a classroom bench runs against: ``streamlit run app.py`` started here, and what it says
about the uploads it still holds. Used by bench/classroom_load.py and bench/classroom_capacity.py."""
from __future__ import annotations

import http.client
import os
import tempfile
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

from classroom_common import ROOT
from streamlit_process import streamlit_process
from server.allocator import server_env


@contextmanager
def local_server(extra_env: dict[str, str] | None = None):
    """``streamlit run app.py`` on a free port (bench/streamlit_process.py), with the allocator
    setting deploy/serve gives a server (server/allocator.py ``server_env``) and ``extra_env`` (the server's
    alone, e.g. an allocator to preload); yields (url, pid, log)."""
    with tempfile.NamedTemporaryFile("w+", prefix="classroom-server-", suffix=".log", delete=False) as log, \
            streamlit_process(ROOT, {**server_env(), **os.environ, **(extra_env or {})}, log,
                              hint=f"log: {log.name}") as (url, process):
        yield url, process.pid, Path(log.name)


def uploaded_bytes(url: str) -> int | None:
    """Bytes of uploaded files the server holds (its /_stcore/metrics), None if it does not say."""
    try:
        text = urllib.request.urlopen(f"{url}/_stcore/metrics", timeout=10).read().decode()
    except (OSError, http.client.HTTPException):  # e.g. the server died mid-answer (IncompleteRead)
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
