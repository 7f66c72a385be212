"""What one simulated student costs the machine that runs the load test: a Chromium tab against a
websocket-protocol client, in CPU seconds (this process and all its children, so Chromium and
Playwright's driver count). Decides how many real browsers ``classroom_load.py`` can afford.

    python bench/classroom_capacity.py --start [--browsers 2] | --url http://127.0.0.1:PORT

Prints, per client kind: CPU seconds to open the app, per page navigation, and per idle second.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))

from classroom_common import URL_PATHS, Recorder  # noqa: E402
from classroom_load import warm_up  # noqa: E402
from classroom_server import local_server  # noqa: E402
from classroom_ws import WsStudent  # noqa: E402

ROUND = [URL_PATHS[s] for s in ("corpus", "chain_rule", "ngram", "decoding", "home", "lstm")] * 2
_seen: dict[int, float] = {}
_server: set[int] = set()  # the server started with --start is a child too: not counted


def cpu_seconds() -> float:
    """CPU time of this process and its descendants, keeping the last value of those that ended."""
    me = psutil.Process()
    for process in [me, *me.children(recursive=True)]:
        if process.pid in _server:
            continue
        try:
            times = process.cpu_times()
            _seen[process.pid] = times.user + times.system
        except psutil.NoSuchProcess:
            pass
    return sum(_seen.values())


async def measure(label: str, clients: list, rec: Recorder) -> None:
    n = len(clients)
    c0 = cpu_seconds()
    await asyncio.gather(*(c.connect(URL_PATHS["corpus"], "en") for c in clients))
    c1 = cpu_seconds()
    for path in ROUND:
        await asyncio.gather(*(c.navigate(path) for c in clients))
    c2 = cpu_seconds()
    await asyncio.sleep(10)
    c3 = cpu_seconds()
    print(f"{label}_clients: {n}")
    print(f"{label}_open_cpu_s: {(c1 - c0) / n:.3f}")
    print(f"{label}_navigate_cpu_s: {(c2 - c1) / n / len(ROUND):.3f}")
    print(f"{label}_idle_cores: {(c3 - c2) / n / 10:.3f}")
    print(f"{label}_errors: {sum(rec.errors.values())}")
    await asyncio.gather(*(c.close() for c in clients))


async def run(url: str, n_browsers: int, n_ws: int) -> None:
    from playwright.async_api import async_playwright

    from classroom_browser import CHROMIUM, CHROMIUM_ARGS, BrowserStudent
    rec = Recorder()
    await measure("websocket", [WsStudent(i, url, rec, 300) for i in range(n_ws)], rec)
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        cpu_seconds()
        rec = Recorder()
        await measure("chromium", [BrowserStudent(i, url, rec, 300, browser) for i in range(n_browsers)], rec)
        await browser.close()
    print(f"loadavg_1min: {os.getloadavg()[0]:.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--url")
    where.add_argument("--start", action="store_true")
    parser.add_argument("--browsers", type=int, default=2)
    parser.add_argument("--websockets", type=int, default=5)
    args = parser.parse_args()
    pages = [URL_PATHS[s] for s in ("home", "corpus", "chain_rule", "ngram", "decoding", "lstm")]
    if args.start:
        with local_server() as (url, pid, _):
            _server.update([pid, *(c.pid for c in psutil.Process(pid).children(recursive=True))])
            asyncio.run(warm_up(url, pages))
            asyncio.run(run(url, args.browsers, args.websockets))
    else:
        asyncio.run(warm_up(args.url, pages))
        asyncio.run(run(args.url, args.browsers, args.websockets))


if __name__ == "__main__":
    t0 = time.monotonic()
    main()
    print(f"elapsed_s: {time.monotonic() - t0:.0f}")
