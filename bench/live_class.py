"""A live class (issue 37) on ``deploy/serve --replicas 2 --store redis``, end to end.

    python bench/live_class.py [--students 60] [--browsers 2] [--idle 10] [--outage 10] [--keep-logs DIR]

One instructor (the projector view, a websocket client) starts a class on the chain-rule lesson;
``--students`` students over Streamlit's websocket protocol (bench/classroom_ws.py) and ``--browsers``
in Chromium (the first phone-sized, 390×844) join through HAProxy with the join link. The instructor
presses Next five times (three slides, three questions); every student follows, and answers each
question within ``--window`` s (a random moment). The instructor waits for the count, then reveals.
On the third question Redis is stopped (SIGTERM: what a restart of Redis does) for ``--outage`` s
after about half the answers: the students who answer then, and everyone's page, must say the class
is paused (a message, no traceback); the others answer after Redis is back.

Printed (``name: value``): answers sent (taken: the student's page said so) and counted (the
projector's own count after each question), answer → shown on the projector p50/p95 (the time from
an answer's sending until the projector's drawn count reaches its rank by sending time), follow
latency (Next sent → a student's page ran to its end on the new slide) p50/p95, errors (exception
boxes, tracebacks, dropped connections, time-outs, refused answers), the replicas' and Redis's CPU
while everyone waits on a slide (``--idle`` s), and what the Redis outage did. Everything runs on
127.0.0.1 and is stopped at the end, also on Ctrl-C or an error.
"""
from __future__ import annotations

import argparse
import asyncio
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from classroom_common import Recorder, SettleTimeout, percentile  # noqa: E402
from live_class_clients import ANSWER_BOX_WAIT, PAUSED, LiveBrowser, LiveWs, Projector, launch_chromium  # noqa: E402
from live_class_stack import Serve  # noqa: E402

URL_PATH = "perplexity"  # the chain-rule lesson
SLIDES = ["sentence", "q-perplexity.top_token", "chain", "q-perplexity.from_probs", "perplexity", "q-perplexity.guess"]
PHONE, LAPTOP = (390, 844), (1280, 720)
JOINS_AT_ONCE = 6  # students opening the join link at the same moment
PROJECTOR_TIMEOUT = 60.0  # seconds for the projector's page to run after Next or Reveal


class Lesson:
    """One run of the class: the people, and what they saw."""

    def __init__(self, args, url: str, serve: Serve) -> None:
        self.args, self.url, self.serve = args, url, serve
        self.rec = Recorder()
        self.rng = random.Random(args.seed)
        self.projector = Projector(0, url, self.rec, args.settle_timeout)
        self.students = [LiveWs(i, url, self.rec, args.settle_timeout) for i in range(1, args.students + 1)]
        self.browsers: list[LiveBrowser] = []
        self.out: dict[str, str] = {}
        self.follow: list[float] = []
        self.follow_browser: list[float] = []
        self.to_projector: list[float] = []
        self.sent = self.counted = self.refused = 0
        self.not_moved = 0
        self.per_slide: dict[str, list[float]] = {}

    # ------------------------------------------------------------------ steps
    async def join(self, chromium) -> None:
        code, _token = await self.projector.start_class(URL_PATH, SLIDES[0])
        gate = asyncio.Semaphore(JOINS_AT_ONCE)

        async def one(student: LiveWs) -> None:
            async with gate:
                try:
                    await student.join(code, f"s{student.index}" if student.index % 2 else "", SLIDES[0])
                except (SettleTimeout, ConnectionError, StopIteration) as error:
                    self.rec.error(student.index, "join", str(error))
        start = time.monotonic()
        for i in range(self.args.browsers):
            self.browsers.append(LiveBrowser(1000 + i, self.url, chromium, PHONE if i == 0 else LAPTOP, self.rec,
                                             self.args.settle_timeout))
        await asyncio.gather(*(one(s) for s in self.students), *(self._browser_join(b, code) for b in self.browsers))
        everyone = len(self.students) + len(self.browsers)
        await self.projector.until(lambda: self.projector.joined >= everyone, 10.0)
        self.out["joined"] = f"{self.projector.joined} of {everyone} in {time.monotonic() - start:.0f} s"

    async def _browser_join(self, browser: LiveBrowser, code: str) -> None:
        try:
            await browser.join(code, f"b{browser.index}", SLIDES[0])
        except Exception as error:  # noqa: BLE001 - Playwright's errors: counted, the class goes on
            self.rec.error(browser.index, "join", f"{type(error).__name__}: {error}"[:300])

    async def idle(self) -> None:
        """Everyone waits on a slide: the servers' CPU per second (their polls only)."""
        await asyncio.sleep(2.0)
        pids = self.serve.server_pids()
        cpu, wall = self.serve.cpu_seconds(pids), time.monotonic()
        await asyncio.sleep(self.args.idle)
        self.out["idle_cpu_cores"] = f"{(self.serve.cpu_seconds(pids) - cpu) / (time.monotonic() - wall):.2f}"
        self.out["idle_seconds"] = f"{time.monotonic() - wall:.1f}"

    async def next_slide(self, slide: str) -> None:
        """Next on the projector; every student's page must show ``slide``."""
        for student in self.students:
            student.follow_target, student.follow_at = slide, None
        start = time.monotonic()
        tasks = [asyncio.create_task(b.wait_slide(slide, start)) for b in self.browsers if b.page is not None]
        try:
            await self.projector.press("lmlab-next", PROJECTOR_TIMEOUT)
        except (SettleTimeout, ConnectionError) as error:  # counted; the students may have moved anyway
            self.rec.error(0, "projector", f"Next: {type(error).__name__}: {error}"[:300])
        live = [s for s in self.students if not s.closing]
        for student in live:
            await student.until(lambda s=student: s.follow_at is not None, max(1.0, start + 30 - time.monotonic()))
        moved = [s.follow_at - start for s in live if s.follow_at is not None]
        self.follow += moved
        self.per_slide[slide] = moved
        self.not_moved += len(live) - len(moved)
        for result in await asyncio.gather(*tasks, return_exceptions=True):
            if isinstance(result, float):
                self.follow_browser.append(result)
            else:
                self.not_moved += 1

    async def question(self, slide: str, outage: bool) -> None:
        """Everyone answers within the window (the last question: around a Redis outage)."""
        question = slide.removeprefix("q-")
        first = len(self.projector.counts)
        sent: list[float] = []
        window = self.args.window
        people = [*self.students, *self.browsers]
        self.rng.shuffle(people)
        half = len(people) // 2 if outage else len(people)

        async def answer(person, delay: float) -> None:
            await asyncio.sleep(delay)
            try:
                if isinstance(person, LiveWs) and not await person.until(lambda: person.has_question(question), ANSWER_BOX_WAIT):
                    raise SettleTimeout(f"no answer box for {question}")
                when, taken = await person.answer(question, self.rng)
            except Exception as error:  # noqa: BLE001 - a time-out or a browser's error: counted
                self.rec.error(getattr(person, "index", -1), "answer", f"{type(error).__name__}: {error}"[:300])
                return
            if taken:
                sent.append(when)
            else:
                self.refused += 1
                self.rec.error(person.index, "refused", getattr(person, "refused", None) or "answer not taken")

        await asyncio.gather(*(answer(p, self.rng.uniform(0, window)) for p in people[:half]))
        if outage:
            await self._counted(first, len(sent))
            before = len(sent)
            await self.redis_outage(people[half:], question)
            await asyncio.gather(*(answer(p, self.rng.uniform(0, window)) for p in people[half:]))
            counted_after = await self._counted(first, len(sent)) - before
            self.out["answers_after_redis_sent"] = str(len(sent) - before)
            self.out["answers_after_redis_counted"] = str(counted_after)
        counted = await self._counted(first, len(sent))
        self.sent += len(sent)
        self.counted += counted
        counts = self.projector.counts[first:]
        for rank, when in enumerate(sorted(sent), 1):
            shown = next((t for t, n in counts if n >= rank and t >= when), None)
            if shown is not None:
                self.to_projector.append(shown - when)
        try:
            await self.projector.press("lmlab-live-reveal", PROJECTOR_TIMEOUT)
        except (SettleTimeout, ConnectionError) as error:
            self.rec.error(0, "reveal", f"{type(error).__name__}: {error}"[:300])

    async def _counted(self, first: int, expected: int) -> int:
        """The projector's count once it shows ``expected`` (or after 15 s)."""
        counts = self.projector.counts
        await self.projector.until(lambda: len(counts) > first and counts[-1][1] >= expected, 15.0)
        return counts[-1][1] if len(counts) > first else 0

    async def redis_outage(self, later: list, question: str) -> None:
        """Redis stopped for ``--outage`` s: who says "paused", and what a Send pressed just then shows."""
        stopped = time.monotonic()
        self.serve.stop_redis()
        trying = [p for p in later if isinstance(p, LiveWs) and p.has_question(question)][:3]
        shown_paused = 0
        for person in trying:  # pressed Send before their page's next poll found Redis gone
            try:
                sent, taken = await person.answer(question, self.rng)
                shown_paused += not taken and person.paused_at is not None and person.paused_at >= sent
            except Exception as error:  # noqa: BLE001 - a time-out: counted
                self.rec.error(person.index, "answer_during_outage", f"{type(error).__name__}: {error}"[:300])
        await asyncio.sleep(max(0.0, stopped + self.args.outage - 0.5 - time.monotonic()))
        ws_paused = sum(s.paused_at is not None and s.paused_at >= stopped for s in self.students)
        browsers_paused = sum([await b.shows(PAUSED, 0.5) for b in self.browsers if b.page is not None])
        await asyncio.sleep(max(0.0, stopped + self.args.outage - time.monotonic()))
        self.serve.restart_redis()
        self.out["redis_outage_s"] = f"{time.monotonic() - stopped:.1f}"
        self.out["redis_outage_paused_shown"] = (f"{ws_paused} of {len(self.students)} websocket, "
                                                 f"{browsers_paused} of {len(self.browsers)} browser students")
        self.out["redis_outage_send_shown_paused"] = f"{shown_paused} of {len(trying)}"

    # ------------------------------------------------------------------ the whole lesson
    async def run(self) -> None:
        from playwright.async_api import async_playwright

        async with async_playwright() as playwright:
            chromium = await launch_chromium(playwright) if self.args.browsers else None
            try:
                await self.join(chromium)
                await self.idle()
                questions = [s for s in SLIDES if s.startswith("q-")]
                for slide in SLIDES[1:]:
                    await self.next_slide(slide)
                    if slide.startswith("q-"):
                        await self.question(slide, outage=self.args.outage > 0 and slide == questions[-1])
                exceptions = sum([await b.exceptions() for b in self.browsers if b.page is not None])
                self.rec.errors["browser_exception"] += exceptions
            finally:
                for person in [self.projector, *self.students, *self.browsers]:
                    await person.close()
                if chromium is not None:
                    await chromium.close()

    def report(self) -> list[tuple[str, str]]:
        ms = lambda values, q: f"{percentile(values, q) * 1000:.0f}" if values else "n/a"  # noqa: E731
        follow_all = self.follow + self.follow_browser
        lines = [("students_ws", str(len(self.students))), ("students_browser", str(len(self.browsers))),
                 ("joined", self.out.get("joined", "n/a")),
                 ("answers_sent", str(self.sent)), ("answers_counted", str(self.counted)),
                 ("answers_lost", str(max(0, self.sent - self.counted))),
                 ("answers_double", str(max(0, self.counted - self.sent))),
                 ("answers_refused", str(self.refused)),
                 ("answer_to_projector_p50_ms", ms(self.to_projector, 50)),
                 ("answer_to_projector_p95_ms", ms(self.to_projector, 95)),
                 ("answer_to_projector_max_ms", ms(self.to_projector, 100)),
                 ("answer_to_projector_n", str(len(self.to_projector))),
                 ("follow_p50_ms", ms(follow_all, 50)), ("follow_p95_ms", ms(follow_all, 95)),
                 ("follow_max_ms", ms(follow_all, 100)), ("follow_n", str(len(follow_all))),
                 ("follow_browser_p50_p95_ms", f"{ms(self.follow_browser, 50)} {ms(self.follow_browser, 95)}"),
                 ("follow_missed", str(self.not_moved))]
        lines += [(f"follow_ws_{slide}_p50_p95_n", f"{ms(values, 50)} {ms(values, 95)} {len(values)}")
                  for slide, values in self.per_slide.items()]
        lines.append(("errors", str(sum(self.rec.errors.values()))))
        lines += [(f"errors_{kind}", str(n)) for kind, n in sorted(self.rec.errors.items())]
        lines += [(k, v) for k, v in self.out.items() if k != "joined"]
        lines.append(("server_log_tracebacks", str(self.serve.tracebacks())))
        return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=60, help="websocket students (default 60)")
    parser.add_argument("--browsers", type=int, default=2, help="Chromium students, the first 390×844 (default 2)")
    parser.add_argument("--replicas", type=int, default=2)
    parser.add_argument("--idle", type=float, default=10.0, help="seconds of waiting measured (CPU)")
    parser.add_argument("--window", type=float, default=10.0, help="students answer within this many seconds")
    parser.add_argument("--outage", type=float, default=10.0, help="seconds without Redis on the last question (0: none)")
    parser.add_argument("--settle-timeout", type=float, default=120.0)
    parser.add_argument("--seed", type=int, default=37)
    parser.add_argument("--keep-logs", type=Path, help="keep deploy/serve's run folder (logs) here")
    args = parser.parse_args()
    run_dir = args.keep_logs or Path(tempfile.mkdtemp(prefix="lmlab-livebench-"))
    run_dir.mkdir(parents=True, exist_ok=True)
    serve = Serve(run_dir, args.replicas)
    started = time.monotonic()
    lesson: Lesson | None = None
    try:
        serve.start()
        quiet = serve.wait_quiet()
        lesson = Lesson(args, serve.url, serve)
        lesson.out["servers_quiet_after_start_s"] = f"{quiet:.0f}"
        asyncio.run(lesson.run())
    finally:  # what was measured is printed, also after an error (which follows)
        lines = lesson.report() if lesson is not None else []
        serve.stop()
        if args.keep_logs is None:
            shutil.rmtree(run_dir, ignore_errors=True)
        for name, value in lines + [("elapsed_s", f"{time.monotonic() - started:.0f}")]:
            print(f"{name}: {value}", flush=True)
        for detail in lesson.rec.error_details[:12] if lesson is not None else []:
            print(f"error_detail: {detail}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
