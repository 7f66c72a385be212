"""A replica dies in the middle of a class: what do its students and everyone else see?

    python deploy/failover_drill.py --replicas 2 --kill-at 0.5 -- --sessions 30 --duration 120

Starts `deploy/serve`, warms every replica (each page once, as bench/classroom_load.py warms its one
server), then runs bench/classroom_load.py's class through the balancer (the arguments after `--`
are its own). A witness, one more Chromium student, uploads a text on its replica before the class;
at ``--kill-at`` of the duration that replica gets SIGKILL. Prints the load test's figures, then
``name: value`` lines: when HAProxy marked the replica DOWN, the errors of the sessions on the killed
replica and on the others (by kind), and what the witness saw: how long until its page was connected
again and to which replica, and whether its next click showed a fresh session (no upload) without an
exception box. The class's websocket clients do not reconnect as the real frontend does: on the
killed replica they end with a "disconnect" error, by design of the client, not of the deployment.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))

import classroom_load  # noqa: E402
from classroom_browser import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from classroom_common import Recorder  # noqa: E402

from lmcore.i18n import t  # noqa: E402

CONNECTED = "[data-testid='stApp'][data-test-connection-state='CONNECTED']"
IDLE = "[data-testid='stApp'][data-test-script-state='notRunning']"


class AttributedRecorder(Recorder):
    """The load test's recorder, keeping every error with its session and time (not only the first few)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.all_errors: list[tuple[int, str, float, str]] = []

    def error(self, session: int, kind: str, detail: str) -> None:
        super().error(session, kind, detail)
        self.all_errors.append((session, kind, time.monotonic(), detail[:200]))


def start_serve(replicas: int, run_dir: Path) -> tuple[subprocess.Popen, str, dict[str, tuple[int, int]]]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    out = run_dir / "serve.out"
    process = subprocess.Popen([sys.executable, str(ROOT / "deploy" / "serve"), "--replicas", str(replicas),
                                "--port", str(port), "--host", "127.0.0.1", "--run-dir", str(run_dir)],
                               cwd=ROOT, stdout=open(out, "w"), stderr=subprocess.STDOUT)
    while "LM Lab on" not in out.read_text():
        if process.poll() is not None:
            sys.exit(f"deploy/serve failed:\n{out.read_text()}")
        time.sleep(0.5)
    found = re.findall(r"replica (r\d+) pid (\d+) on 127\.0\.0\.1:(\d+)", out.read_text())
    return process, f"http://127.0.0.1:{port}", {name: (int(pid), int(p)) for name, pid, p in found}


def server_status(run_dir: Path, name: str) -> str:
    with socket.socket(socket.AF_UNIX) as s:
        s.connect(str(run_dir / "haproxy.sock"))
        s.sendall(b"show stat\n")
        rows = [line.split(",") for line in s.makefile().read().splitlines()]
    return next(r[17] for r in rows if len(r) > 17 and r[0] == "replicas" and r[1] == name)


class Witness:
    """One Chromium student who uploads a text, then lives through the kill of its replica."""

    def __init__(self, browser, url: str) -> None:
        self.browser, self.url, self.closes = browser, url, []

    async def open_and_upload(self, tmp: Path) -> None:
        self.context = await self.browser.new_context(viewport={"width": 1400, "height": 1000}, locale="en-US")
        self.page = await self.context.new_page()
        self.page.on("websocket", lambda ws: ws.on("close", lambda _: self.closes.append(time.monotonic())))
        await self.page.goto(f"{self.url}/?lang=en")
        await self.settle()
        path = tmp / "witness.txt"
        path.write_text("".join(f"The witness writes line {i} about the quiet harbour .\n" for i in range(200)))
        await self.page.locator("[data-testid='stSidebar'] input[type='file']").set_input_files(str(path))
        self.label = t("sidebar.sample.upload", "en", name=path.name)
        await self.page.get_by_text(self.label).first.wait_for(timeout=120_000)
        await self.settle()

    async def settle(self) -> None:
        await self.page.wait_for_selector(CONNECTED, timeout=120_000)
        await self.page.wait_for_timeout(300)
        await self.page.wait_for_selector(IDLE, timeout=120_000)

    async def replica(self) -> str:
        return next(c["value"] for c in await self.context.cookies() if c["name"] == "lmlab_replica")

    async def after_kill(self, killed_at: float, victim: str) -> list[tuple[str, str]]:
        deadline = killed_at + 120
        while not (self.closes and await self.replica() != victim and await self.page.locator(CONNECTED).count()):
            if time.monotonic() > deadline:
                return [("witness_reconnected", "no (still waiting after 120 s)")]
            await self.page.wait_for_timeout(100)
        reconnected, clicked = time.monotonic() - killed_at, time.monotonic()
        await self.page.locator("[data-testid='stSidebarNav']").get_by_text(t("nav.corpus", "en"), exact=True).click()
        while await self.page.get_by_text(self.label).count():  # the stale page, until the fresh run arrives
            if time.monotonic() - clicked > 120:
                break
            await self.page.wait_for_timeout(100)
        fresh = not await self.page.get_by_text(self.label).count()
        await self.settle()
        exceptions = await self.page.locator("[data-testid='stException']").count()
        return [("witness_reconnected_after_s", f"{reconnected:.2f}"), ("witness_now_on", await self.replica()),
                ("witness_next_click_fresh_session", f"yes, {time.monotonic() - clicked:.1f} s after the click"
                 if fresh else "no (upload still shown 120 s after the click)"),
                ("witness_exception_boxes", str(exceptions))]


async def drill(url: str, args, replicas: dict[str, tuple[int, int]], run_dir: Path, kill_at: float) -> None:
    from playwright.async_api import async_playwright

    await asyncio.gather(*(classroom_load.warm_up(f"http://127.0.0.1:{port}", args.pages)
                           for _, port in replicas.values()))
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        witness = Witness(browser, url)
        await witness.open_and_upload(run_dir)
        victim = await witness.replica()
        class_task, started = asyncio.create_task(classroom_load.run_class(url, args)), time.monotonic()
        await asyncio.sleep(args.ramp + kill_at * args.duration)
        os.kill(replicas[victim][0], signal.SIGKILL)
        killed_at = time.monotonic()
        while await asyncio.to_thread(server_status, run_dir, victim) != "DOWN":
            await asyncio.sleep(0.1)
        lines = [("killed", f"{victim} at {killed_at - started:.1f} s into the class"),
                 ("balancer_marked_down_after_s", f"{time.monotonic() - killed_at:.2f}")]
        lines += await witness.after_kill(killed_at, victim)
        rec, elapsed = await class_task
        await browser.close()
    for name, value in rec.report(args.sessions, args.browsers, args.duration, elapsed):
        print(f"{name}: {value}")
    for name, value in lines:
        print(f"{name}: {value}")
    for group, on_victim in (("killed_replica", True), ("other_replicas", False)):
        sessions = {s for s, r in rec.replicas.items() if (r == victim) == on_victim}
        before = Counter(k for s, k, when, _ in rec.all_errors if s in sessions and when < killed_at)
        after = Counter(k for s, k, when, _ in rec.all_errors if s in sessions and when >= killed_at)
        print(f"{group}_sessions: {len(sessions)}")
        print(f"{group}_errors_before_kill: {dict(before) or 0}")
        print(f"{group}_errors_after_kill: {dict(after) or 0}")
        browsers = sorted(s for s in sessions if s < args.browsers)
        for s in browsers:
            acted = sum(1 for a in rec.actions if a.session == s and rec.t0 + a.started >= killed_at)
            print(f"{group}_browser_session_{s}_actions_after_kill: {acted}")
    for s, kind, when, detail in rec.all_errors:
        if when >= killed_at - 1:
            print(f"detail: session {s} on {rec.replicas.get(s)} at +{when - killed_at:.1f} s {kind}: {detail!r}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--replicas", type=int, default=2)
    parser.add_argument("--kill-at", type=float, default=0.5, help="fraction of the class's duration")
    ours, load_args = parser.parse_known_args()
    load_args = [a for a in load_args if a != "--"]
    run_dir = Path(tempfile.mkdtemp(prefix="lmlab-drill-"))
    process, url, replicas = start_serve(ours.replicas, run_dir)
    classroom_load.Recorder = AttributedRecorder

    classroom_load._measure = lambda url_, pids, args, log: asyncio.run(drill(url_, args, replicas, run_dir, ours.kill_at))
    try:
        classroom_load.main(["--url", url, *load_args])
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(60)
        print((run_dir / "serve.out").read_text(), end="")


if __name__ == "__main__":
    main()
