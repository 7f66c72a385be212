"""A real Streamlit server and Debian's Chromium for end-to-end tests (Playwright, no downloaded browser)."""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
SCREENSHOTS = ROOT / "screenshots"
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
]


def require_chromium() -> None:
    """Skip outside CI when Chromium or Playwright is missing; in CI (CI=true) that is a failure."""
    missing = [what for what, ok in [("Chromium at /usr/bin/chromium", Path(CHROMIUM).exists()),
                                     ("the playwright package", _has_playwright())] if not ok]
    if missing:
        reason = f"browser tests need {' and '.join(missing)} (install with: apt-get install chromium; pip install -r requirements-dev.txt)"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)


def _has_playwright() -> bool:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return False
    return True


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def streamlit_server():
    """Start ``streamlit run app.py`` on a free port; yield its base URL once /_stcore/health says ok."""
    port = _free_port()
    log = open(ROOT / "screenshots" / f"server-{port}.log", "w") if SCREENSHOTS.exists() else subprocess.DEVNULL
    process = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true", "--server.port", str(port),
         "--server.address", "127.0.0.1", "--global.developmentMode", "false", "--server.fileWatcherType", "none",
         "--browser.gatherUsageStats", "false"],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 90
        while True:
            try:
                if urllib.request.urlopen(f"{url}/_stcore/health", timeout=2).read() == b"ok":
                    break
            except OSError:
                pass
            if process.poll() is not None or time.time() > deadline:
                raise RuntimeError("streamlit did not become healthy")
            time.sleep(0.3)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()


def wait_for_app(page, timeout: float = 120_000) -> None:
    """Wait until the script has run: connected, not running, no skeleton placeholders."""
    page.wait_for_selector("[data-testid='stApp'][data-test-connection-state='CONNECTED']", timeout=timeout)
    page.wait_for_timeout(300)
    page.wait_for_selector("[data-testid='stApp'][data-test-script-state='notRunning']", timeout=timeout)
    page.wait_for_function("document.querySelectorAll('[data-testid=\"stSkeleton\"]').length === 0", timeout=timeout)


def screenshot(page, name: str, max_height: int = 5000) -> None:
    """Save what the browser's window shows (a projector's view at the test's 1280×720). With
    ``LMLAB_FULL_PAGE_SCREENSHOTS=1`` save the whole page instead, up to ``max_height`` pixels:
    Streamlit scrolls inside its main container, so the window grows to fit it (a suite run skips
    that: rasterising pages of up to 5000 px in software cost it a second or two each)."""
    SCREENSHOTS.mkdir(exist_ok=True)
    path = str(SCREENSHOTS / f"{name}.png")
    if not os.environ.get("LMLAB_FULL_PAGE_SCREENSHOTS"):
        page.screenshot(path=path)
        return
    size = page.viewport_size
    height = page.evaluate("(document.querySelector('[data-testid=\"stMain\"]') || document.body).scrollHeight")
    page.set_viewport_size({"width": size["width"], "height": min(max(height, size["height"]), max_height)})
    page.wait_for_timeout(500)
    page.screenshot(path=path)
    page.set_viewport_size(size)


def chromium_installed() -> bool:
    return Path(CHROMIUM).exists() and shutil.which(CHROMIUM) is not None
