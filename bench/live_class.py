"""A live class's back end under a class of simulated students (issue 37).

    python bench/live_class.py --students 60 [--redis redis://127.0.0.1:6379/0] [--idle 10]

Each student is a thread doing what its page's fragment does: join, then poll every two seconds
(``student_poll``: one small read while nothing changed). The instructor opens a number question;
every student answers once (a random number); the instructor reveals. Printed: answers sent and
counted by the projector, the latency of an answer and of a poll (p50/p95), how long after the
reveal the students had seen it, and the CPU this process spent per second of idle polling.

This measures the class's state (in-process, or Redis with ``--redis``), not Streamlit's drawing:
an idle poll that finds nothing changed redraws only the fragment's few elements from the session.
"""
from __future__ import annotations

import argparse
import random
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from server.class_store import InProcessClassStore  # noqa: E402
from server.live_class import LiveClasses  # noqa: E402
from server.live_class_types import OpenQuestion, Reveal, Status  # noqa: E402

POLL_SECONDS = 2.0


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--students", type=int, default=60)
    parser.add_argument("--redis", default="", help="a Redis URL (default: the in-process store)")
    parser.add_argument("--idle", type=float, default=10.0, help="seconds of idle polling measured")
    args = parser.parse_args()
    if args.redis:
        from server.class_store import RedisClassStore

        store = RedisClassStore(args.redis)
    else:
        store = InProcessClassStore()
    classes = LiveClasses(store, namespace=f"bench{random.getrandbits(32):x}:")
    started = classes.start_class("chain_rule", 0)
    code, token = started.code, started.token
    seq = iter(range(1, 10**6))
    polls: list[float] = []
    answers: list[float] = []
    seen_reveal: list[float] = []
    revealed_at: list[float] = []
    phase = {"answer": threading.Event(), "stop": threading.Event()}
    lock = threading.Lock()

    def student(i: int) -> None:
        browser = f"bench-{i}"
        classes.join(code, browser, f"s{i}" if i % 2 else None)
        stamp = classes.student_view(code, browser).stamp
        answered = False
        time.sleep(random.random() * POLL_SECONDS)  # phones do not poll in step
        while not phase["stop"].is_set():
            start = time.perf_counter()
            view = classes.student_poll(code, browser, stamp)
            took = time.perf_counter() - start
            with lock:
                polls.append(took)
            if view is not None:
                stamp = view.stamp
                if view.question is not None and view.question.revealed and revealed_at:
                    with lock:
                        seen_reveal.append(time.perf_counter() - revealed_at[0])
                    return
            if phase["answer"].is_set() and not answered and view is not None and view.question is not None:
                start = time.perf_counter()
                result = classes.answer(code, browser, view.question.question_id, f"{random.gauss(50, 10):.2f}")
                with lock:
                    answers.append(time.perf_counter() - start)
                answered = result.ok
            phase["stop"].wait(POLL_SECONDS)

    threads = [threading.Thread(target=student, args=(i,), daemon=True) for i in range(args.students)]
    for thread in threads:
        thread.start()
    time.sleep(POLL_SECONDS * 1.5)  # everyone joined and polling
    cpu0, wall0 = time.process_time(), time.perf_counter()
    with lock:
        polls.clear()
    time.sleep(args.idle)
    idle_cpu = (time.process_time() - cpu0) / (time.perf_counter() - wall0)
    with lock:
        idle_polls = list(polls)
    classes.instructor_action(code, token, next(seq), OpenQuestion("bench@1", "number", 50.0, 5.0))
    phase["answer"].set()
    deadline = time.monotonic() + 6 * POLL_SECONDS
    while time.monotonic() < deadline and classes.projector_view(code, token).answered < args.students:
        time.sleep(0.1)
    view = classes.projector_view(code, token)
    revealed_at.append(time.perf_counter())
    classes.instructor_action(code, token, next(seq), Reveal())
    for thread in threads:
        thread.join(timeout=3 * POLL_SECONDS)
    phase["stop"].set()
    after = classes.projector_view(code, token)
    ms = 1000.0
    print(f"store: {'Redis' if args.redis else 'in-process'} · students: {args.students} · status {after.status}")
    print(f"answers sent: {len(answers)} · counted by the projector: {view.answered} · share correct "
          f"{after.share_correct:.0%}" if after.status is Status.LIVE and after.share_correct is not None else "")
    print(f"answer latency ms: p50 {percentile(answers, 0.5) * ms:.2f} · p95 {percentile(answers, 0.95) * ms:.2f}")
    print(f"idle poll latency ms: p50 {percentile(idle_polls, 0.5) * ms:.3f} · p95 {percentile(idle_polls, 0.95) * ms:.3f}"
          f" · {len(idle_polls)} polls in {args.idle:.0f} s")
    print(f"reveal seen by {len(seen_reveal)} students, after s: p50 {percentile(seen_reveal, 0.5):.2f} · "
          f"p95 {percentile(seen_reveal, 0.95):.2f} (polling every {POLL_SECONDS:.0f} s)")
    print(f"idle CPU of this process: {idle_cpu * 100:.1f}% of one core")


if __name__ == "__main__":
    main()
