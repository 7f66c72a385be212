"""A whole class on one server: N simultaneous students for a fixed time.

    python bench/classroom_load.py --sessions 30 --duration 120 [--url http://127.0.0.1:PORT [--pids P ...] | --start]

Each student opens a random page (English or Chinese UI), then, after a think time, navigates to a
random page or moves a random control; a share of them upload a text (English, Chinese, or a 5 MB
file; each carries a unique marker word), and several press Train at the same moment. Every
student searches its own page for every other student's marker after each action (a leak) and,
after its upload, checks that the Corpus page shows its own marker (file name and text preview).
Prints ``name: value`` lines: sessions, duration, actions, errors (exception boxes, tracebacks,
dropped connections, HTTP errors, settle timeouts), leaks, p50/p95 seconds from action to settled
page (all, and those started while a training ran), peak and final server RSS, CPU used by the
server, this client and Chromium, and the sessions per ``lmlab_replica`` cookie value.

Why 28 websocket clients and 2 real browsers (``--browsers``): a Chromium tab costs this 2-core
machine ~10 CPU-s to open the app and ~1.6-1.8 CPU-s per page change (rendering Plotly charts and
tables), a client of Streamlit's websocket protocol (classroom_ws.py) ~0.005 CPU-s and ~0.003
CPU-s: ``python bench/classroom_capacity.py --start`` measures both. 30 tabs, one action every
~5 s each, would need ~10 cores for Chromium alone; two tabs already take 0.2-0.4 of the two cores
the server needs. So the class is websocket clients (which send and parse exactly what the frontend
does: see classroom_ws.py), and two tabs check what a page really shows (exception boxes, text).

Training is "pressing Train": the action is settled when the page is (not when training ends);
a training counts as running from the click until the student's page shows neither a progress bar
below 100 % nor a fragment that polls (auto_rerun). A training that fails shows an exception box:
an error. Server RSS: ``--start`` measures the server it launched (psutil); with ``--url``, the
processes given by ``--pids``, else no RSS lines. "Pre-test" RSS is taken after one warm-up
session has visited every page and closed (on a cold server that builds the English corpus's models
and figures: minutes; behind a load balancer it warms one replica only) and the server is at rest
(``--rest-before`` seconds, long enough for its idle-time warm-up, then until its CPU is idle 2 s); "final" RSS
``--after-close`` seconds after the last student closed (the app closes a disconnected session
after ``LMLAB_RECONNECT_SECONDS``, server/sessions.py; Streamlit alone would keep it, and its uploaded
files for good). ``server_uploads_gone_after_close_s``: when the server's metrics
(``/_stcore/metrics``, the upload manager's bytes; refreshed every 5 s) first showed no uploaded
file held after the last student closed (``--uploads-gone-limit`` seconds at most), and
``uploads_held_while_open``: how many of the uploads shown on their Corpus page the server was seen
holding (its held bytes at least the file's size) right after, its session still open. Students act every ``--think`` 2-8 s: 40 % page
changes, 60 % control moves (every keyed widget but training recipes, free text and the uploader;
the page's bar of parts too: opening another part of a page).
A planned upload or training happens even after the deadline, so what a run does is the same on a
fast or a busy machine; ``--settle-timeout`` makes a page that does not settle an error.
"""
from __future__ import annotations

import argparse
import asyncio
import random
import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from classroom_common import (  # noqa: E402
    TRAIN_BUTTONS, URL_PATHS, Recorder, SettleTimeout, new_marker, upload_payload,
)
from classroom_monitor import Monitor  # noqa: E402
from classroom_server import local_server, uploaded_bytes, uploads_gone_after  # noqa: E402
from server.warmup import IDLE_SECONDS  # noqa: E402
from lmcore.i18n import t  # noqa: E402
from classroom_ws import WsStudent  # noqa: E402

PREVIEW_PART = {t("parts.corpus.preview", lang) for lang in ("en", "zh")}  # the Corpus page's text (ui/sections.py)
UPLOAD_KINDS = ("en", "zh", "big")
STEPS_SLIDERS = {"lstm_train": "lstm_steps", "seq2seq_train": "seq2seq_train_steps"}


class Student:
    """The behaviour of one student, whatever drives the page (websocket client or browser)."""

    def __init__(self, index: int, client, rec: Recorder, args, rng: random.Random, plan: dict, class_: dict):
        self.i, self.client, self.rec, self.args, self.rng, self.plan, self.cls = index, client, rec, args, rng, plan, class_
        self.page, self.recorded, self.start = "", False, 0.0

    async def act(self, kind: str, coroutine, settle_timeout_is_error: bool = True) -> bool:
        """Run one action and record its settle time; False when the session cannot go on."""
        started, self.recorded = time.monotonic(), False
        try:
            seconds = await coroutine
        except SettleTimeout as error:
            self.rec.error(self.i, "timeout", f"{kind}: {error}")
            return True
        except (ConnectionError, OSError) as error:
            if not self.client.closing:
                self.rec.error(self.i, "disconnect", f"{kind}: {error!r}")
            return False
        except Exception as error:  # noqa: BLE001 - a client failure is reported, never hidden
            self.rec.error(self.i, "client", f"{kind}: {error!r}")
            return True
        if seconds is not None:  # None: the action changed nothing (no control to move, no run)
            self.recorded = True
            self.rec.action(self.i, kind, started, seconds, self.page)
            if seconds > self.args.settle_timeout and settle_timeout_is_error:
                self.rec.error(self.i, "timeout", f"{kind} settled after {seconds:.0f} s")
        await self.look()
        return True

    async def look(self) -> None:
        """Search this student's page for the other students' markers."""
        try:
            self.rec.check_leaks(self.i, await self.client.text())
        except Exception as error:  # noqa: BLE001
            if not self.client.closing:
                self.rec.error(self.i, "client", f"reading the page: {error!r}")

    async def run(self, start: float, deadline: float) -> None:
        self.start = start
        await asyncio.sleep(self.rng.uniform(0, self.args.ramp))
        self.page = self.rng.choice(self.args.pages)
        try:
            ok = await self.act("open", self.client.connect(self.page, self.rng.choice(["en", "zh"])))
            # A planned upload or training happens even after the deadline: what a run does must
            # not depend on how fast the machine is.
            while ok and (time.monotonic() < deadline or "upload" in self.plan or "train" in self.plan):
                await asyncio.sleep(self.rng.uniform(*self.args.think))
                ok = await self.step(deadline)
        finally:
            await self.client.close()

    async def step(self, deadline: float) -> bool:
        now = time.monotonic()
        if "train" in self.plan and now >= min(self.start + self.plan["train_at"], deadline):
            return await self.train(self.plan.pop("train"), deadline)
        if "upload" in self.plan and now >= min(self.start + self.plan["upload_at"], deadline):
            return await self.upload(self.plan.pop("upload"))
        if self.rng.random() >= 0.4:
            ok = await self.act("control", self.client.move_control(self.rng))
            if not ok or self.recorded:
                return ok
        return await self.navigate(self.rng.choice([p for p in self.args.pages if p != self.page]))

    async def navigate(self, url_path: str) -> bool:
        self.page = url_path
        return await self.act("navigate", self.client.navigate(url_path))

    async def upload(self, kind: str) -> bool:
        marker = new_marker()
        self.rec.markers[marker] = self.i
        name, data = upload_payload(kind, marker, seed=self.i)
        if not await self.act(f"upload_{kind}", self.client.upload(name, data)):
            return False
        if not await self.navigate(URL_PATHS["corpus"]):
            return False
        if not self.recorded:  # the Corpus page did not settle (an error already): nothing to check
            self.rec.own_marker_checks["unchecked"] += 1
            return True
        try:
            return await self.check_upload(name, marker, len(data))
        except (ConnectionError, OSError) as error:  # the replica died while the student looked
            return self.disconnected("upload check", error)

    def disconnected(self, kind: str, error: BaseException) -> bool:
        """Count a dropped connection outside :meth:`act` as ``act`` does; False: the session ends."""
        if not self.client.closing:
            self.rec.error(self.i, "disconnect", f"{kind}: {error!r}")
        return False

    async def check_upload(self, name: str, marker: str, size: int) -> bool:
        """On the Corpus page after an upload: the student's own marker is in the text's preview."""
        try:  # the page is in parts: the student opens the text's one (another may be open since a move)
            await self.client.open_part(PREVIEW_PART)
        except SettleTimeout as error:
            self.rec.error(self.i, "settle", f"Corpus page's text part after the upload: {error}")
            return True
        shown = in_preview = False
        for attempt in range(2):  # a run the server starts by itself (a training that ended) redraws the page
            try:
                await self.client.quiet()
            except SettleTimeout as error:
                self.rec.error(self.i, "settle", f"Corpus page after the upload: {error}")
                return True
            text = await self.client.text()
            shown = (marker.encode() if isinstance(text, bytes) else marker) in text
            in_preview = shown and await self.client.shows_in_text_element(marker)
            if in_preview or attempt:
                break
            await asyncio.sleep(2)
        if in_preview:
            self.rec.own_marker_checks["ok"] += 1
            # while this session is open the server holds its file: what makes "no upload held after
            # the class" (server_uploads_gone_after_close_s) a measurement and not a missing metric
            self.rec.uploads_held.append((await asyncio.to_thread(uploaded_bytes, self.client.base), size))
        elif messages := await self.client.error_messages():  # refused, and the page says why
            self.rec.own_marker_checks["refused"] += 1
            self.rec.error_details.append(f"session {self.i} upload refused: {name}: {messages[0][:200]!r}")
        else:
            self.rec.own_marker_checks["missing"] += 1
            self.rec.error(self.i, "upload_not_shown", f"{name}: marker {'only in the file name' if shown else 'absent'}; "
                           f"the preview shows {await self.client.preview()!r}")
        return True

    async def train(self, button: str, deadline: float) -> bool:
        """Go to the Train button's page, wait for the other trainers, press Train together."""
        target = URL_PATHS[TRAIN_BUTTONS[button]]
        if self.page != target and not await self.navigate(target):
            return False
        self.cls["ready"] += 1
        if self.cls["ready"] >= self.cls["trainers"]:
            self.cls["go"].set()
        try:
            await asyncio.wait_for(self.cls["go"].wait(), 15)
        except TimeoutError:
            pass
        if not self.client.has_widget(button):
            self.rec.error(self.i, "client", f"no button {button} on {target}: {sorted(self.client.widget_keys())}")
            return True
        if self.args.quick_training and not await self.act("control", self.client.smallest(STEPS_SLIDERS[button])):
            return False
        self.rec.training.add(self.i)
        self.rec.trainings_started += 1
        try:
            wait = max(deadline - time.monotonic(), 0) + self.args.settle_timeout
            ok = await self.act("train", self.client.click(button, timeout=wait))
            while ok and self.client.training_active() and time.monotonic() < deadline:
                await asyncio.sleep(1)
                await self.look()
            return ok
        except (ConnectionError, OSError) as error:
            return self.disconnected("train", error)
        finally:
            self.rec.training.discard(self.i)


def plan_class(args, rng: random.Random) -> list[dict]:
    """Who uploads what and when, who trains what: uploaders spread evenly, trainers at the end."""
    n, plans = args.sessions, [dict() for _ in range(args.sessions)]
    n_up = round(args.upload_share * n)
    uploaders = [round(k * n / n_up) for k in range(n_up)] if n_up else []
    for k, i in enumerate(uploaders):
        plans[i].update(upload=UPLOAD_KINDS[k % 3], upload_at=args.ramp + rng.uniform(0.1, 0.5) * args.duration)
    websocket_students = list(range(n - 1, args.browsers - 1, -1))  # trainers: websocket students, uploaders last
    trainers = sorted(websocket_students, key=lambda i: i in uploaders)[: args.trainers]
    for k, i in enumerate(trainers):
        plans[i].update(train=args.train_buttons[k % len(args.train_buttons)], train_at=args.ramp + args.train_at * args.duration)
    return plans


async def warm_up(url: str, pages: list[str]) -> None:
    """One student visits every page once, so imports and shared caches (the built-in English
    corpus's models and figures: minutes on a cold server) exist before the test."""
    rec = Recorder()
    client = WsStudent(-1, url, rec, settle_timeout=900)
    await client.connect("", "en")
    for path in pages:
        await client.navigate(path)
    await client.close()
    if rec.errors:
        print(f"warm_up_errors: {dict(rec.errors)} {rec.error_details}")


async def run_class(url: str, args) -> tuple[Recorder, float]:
    rng = random.Random(args.seed)
    rec = Recorder()
    plans = plan_class(args, rng)
    class_ = {"ready": 0, "trainers": sum("train" in p for p in plans), "go": asyncio.Event()}
    playwright = browser = None
    if args.browsers:
        from playwright.async_api import async_playwright

        from classroom_browser import CHROMIUM, CHROMIUM_ARGS, BrowserStudent
        playwright = await async_playwright().start()
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
    clients = [BrowserStudent(i, url, rec, args.settle_timeout, browser) if i < args.browsers
               else WsStudent(i, url, rec, args.settle_timeout) for i in range(args.sessions)]
    students = [Student(i, c, rec, args, random.Random(rng.random()), plans[i], class_) for i, c in enumerate(clients)]
    start = time.monotonic()
    rec.t0 = start
    try:
        await asyncio.gather(*(s.run(start, start + args.ramp + args.duration) for s in students))
    finally:
        if browser is not None:
            await browser.close()
            await playwright.stop()
    return rec, time.monotonic() - start


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--url", help="a running server (or load balancer)")
    where.add_argument("--start", action="store_true", help="launch app.py on a free port and measure its RSS")
    parser.add_argument("--pids", type=int, nargs="*", default=[], help="server processes to measure with --url")
    parser.add_argument("--sessions", type=int, default=30)
    parser.add_argument("--duration", type=float, default=120, help="seconds of activity after the ramp")
    parser.add_argument("--browsers", type=int, default=2, help="how many sessions are real Chromium tabs")
    parser.add_argument("--upload-share", type=float, default=0.3)
    parser.add_argument("--pages", default=",".join(URL_PATHS), help="the pages (file stems) students visit")
    parser.add_argument("--trainers", type=int, default=2, help="students who press Train at the same moment")
    parser.add_argument("--train-buttons", default=",".join(TRAIN_BUTTONS), help="keys of the Train buttons, in turn")
    parser.add_argument("--quick-training", action="store_true", help="trainers first move the steps slider to its minimum")
    parser.add_argument("--train-at", type=float, default=0.3, help="when, as a fraction of the duration")
    parser.add_argument("--think", type=float, nargs=2, default=(2.0, 8.0), help="think time range, seconds")
    parser.add_argument("--ramp", type=float, default=5.0, help="students open the app within this many seconds")
    parser.add_argument("--settle-timeout", type=float, default=60.0)
    parser.add_argument("--after-close", type=float, default=10.0)
    parser.add_argument("--rest-before", type=float, default=IDLE_SECONDS + 2,
                        help="seconds to wait after the warm-up visit (then until the server is idle 2 s) before the pre-test RSS")
    parser.add_argument("--uploads-gone-limit", type=float, default=60.0,
                        help="seconds after the class to wait for the server to hold no uploaded file")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--server-env", action="append", default=[], metavar="NAME=VALUE",
                        help="with --start: an environment variable for the server only (repeatable)")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # so the server we started is stopped too
    args.browsers = min(args.browsers, args.sessions)
    stems, args.train_buttons = args.pages.split(","), args.train_buttons.split(",")
    unknown = set(stems) - set(URL_PATHS) | set(args.train_buttons) - set(TRAIN_BUTTONS)
    if unknown:
        parser.error(f"unknown page or button: {sorted(unknown)}")
    if args.trainers:  # a trainer needs its button's page
        stems += [TRAIN_BUTTONS[b] for b in args.train_buttons]
    args.pages = list(dict.fromkeys(URL_PATHS[stem] for stem in stems))
    if args.start:
        extra_env = dict(item.split("=", 1) for item in args.server_env)
        with local_server(extra_env) as (url, pid, log):
            _measure(url, [pid], args, log)
        if "Traceback" not in log.read_text(errors="replace"):
            log.unlink()
    else:
        _measure(args.url.rstrip("/"), args.pids, args, None)


def _measure(url: str, pids: list[int], args, log: Path | None) -> None:
    asyncio.run(warm_up(url, args.pages))
    monitor = Monitor(pids) if pids else None
    if monitor:  # "pre": the server at rest, its idle-time warm-up (server/warmup.py: heavy imports) done
        # --rest-before 0: no wait at all (the suite's short run: its "pre" RSS is then not at rest)
        print(f"pre_test_wait_s: {monitor.wait_at_rest(args.rest_before) if args.rest_before > 0 else 0.0:.1f}")
        monitor.mark("pre")
        monitor.start()
    rec, elapsed = asyncio.run(run_class(url, args))
    closed_at = time.monotonic()
    if monitor:
        monitor.mark("closed")
        time.sleep(args.after_close)
        monitor.mark("final")
        monitor.stop()
    uploads_gone = uploads_gone_after(url, closed_at, args.uploads_gone_limit)
    for name, value in rec.report(args.sessions, args.browsers, args.duration, elapsed):
        print(f"{name}: {value}")
    if monitor:
        for name, value in monitor.report(elapsed):
            print(f"{name}: {value}")
    print(f"server_uploads_gone_after_close_s: {uploads_gone}")
    if log is not None:  # informational: Streamlit itself logs some (e.g. a websocket closing mid-send)
        tracebacks = log.read_text(errors="replace").count("Traceback")
        print(f"server_log_tracebacks: {tracebacks}")
        if tracebacks:
            print(f"server_log: {log}")
    for detail in rec.error_details:
        print(f"detail: {detail}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
