"""The live class's shared state (issue 37): server/live_class.py on both stores of
server/class_store.py. The Redis tests start their own ``redis-server`` on a free port in a
temporary directory; they skip where it is not installed (and fail in CI, which installs it)."""
from __future__ import annotations

import hashlib
import json
import logging
import os
import secrets
import shutil
import socket
import subprocess
import threading
import time
import uuid
from pathlib import Path

import pytest

from server.class_store import Added, InProcessClassStore, StoreUnavailable
from server.live_class import (
    CODE_ALPHABET, Accepted, Advance, ClassLimits, Close, LiveClasses, OpenQuestion, Problem, Refused, Reset, Reveal,
    Started, Status, clean_nickname, parse_number,
)

REDIS_SERVER = shutil.which("redis-server") or "/usr/bin/redis-server"
LOGGER = "server.live_class"


def require_redis_server() -> None:
    """Skip where redis-server is missing; in CI (which installs it) that is a failure."""
    if not Path(REDIS_SERVER).exists():
        reason = "the Redis tests need redis-server (install with: apt-get install redis-server)"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class RedisServer:
    """A redis-server of the test's own, in ``directory``; ``appendonly`` keeps data over a restart."""

    def __init__(self, directory: Path, appendonly: bool) -> None:
        self.directory, self.appendonly, self.port = directory, appendonly, free_port()
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        import redis

        self.process = subprocess.Popen(
            [REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "yes" if self.appendonly else "no", "--appendfsync", "always",
             "--dir", str(self.directory), "--daemonize", "no", "--logfile", ""],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        from redis.backoff import NoBackoff
        from redis.retry import Retry

        client = redis.Redis(port=self.port, socket_connect_timeout=0.5, retry=Retry(NoBackoff(), 0))  # we poll
        deadline = time.monotonic() + 20  # polling an external server until it starts (bounded)
        try:
            while True:
                assert self.process.poll() is None, "redis-server exited at start"
                try:
                    if client.ping():
                        return
                except redis.exceptions.ConnectionError:  # refused, or still loading its data
                    pass
                assert time.monotonic() < deadline, "redis-server did not answer within 20 s"
                time.sleep(0.02)
        finally:
            client.close()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()  # SIGTERM: Redis writes its append-only file and exits
            self.process.wait(timeout=30)


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory):
    """One in-memory redis-server for the module (each test has its own key namespace)."""
    require_redis_server()
    server = RedisServer(tmp_path_factory.mktemp("redis"), appendonly=False)
    server.start()
    yield server.url
    server.stop()


class FakeClock:
    """Seconds that move only when told (expiry and rate limits without waiting)."""

    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


GENEROUS = ClassLimits(answers_burst=100.0)  # tests of other rules are not slowed by the rate limit


@pytest.fixture(params=["memory", "redis"])
def make(request):
    """``make(limits) -> (LiveClasses, clock)`` on the parametrised back end; several calls in one
    test share one store (like replicas of one server)."""
    clock = FakeClock()
    namespace = f"test-{uuid.uuid4().hex}:"
    stores: list = []

    def new_store():
        if request.param == "memory":
            if not stores:
                stores.append(InProcessClassStore(clock))
            return stores[0]
        from server.class_store import RedisClassStore

        stores.append(RedisClassStore(request.getfixturevalue("redis_url")))
        return stores[-1]

    def factory(limits: ClassLimits = GENEROUS) -> tuple[LiveClasses, FakeClock]:
        return LiveClasses(new_store(), limits, clock=clock, namespace=namespace), clock

    yield factory
    for store in stores:
        if hasattr(store, "close"):
            store.close()


def started(classes: LiveClasses, page: str = "ngram", slide: int = 0) -> Started:
    result = classes.start_class(page, slide)
    assert isinstance(result, Started), result
    return result


def ok(result: Accepted | Refused) -> Accepted:
    assert isinstance(result, Accepted), result
    return result


def refused(result: Accepted | Refused, problem: Problem) -> None:
    assert isinstance(result, Refused), result
    assert result.problem is problem, result
    assert result.detail


NUMBER_Q = OpenQuestion("q-pi", "number", answer=3.14159, tolerance=0.01)
CHOICE_Q = OpenQuestion("q-next", "choice", answer="Zanzibar", choices=("cat", "Zanzibar", "mat"))


# ------------------------------------------------------------------------------------------------
# The lesson as the instructor and the students see it


def test_a_lesson_follow_answer_reveal(make):
    classes, _ = make()
    code, token = started(classes, "ngram", 0)
    assert len(code) == 5 and set(code) <= set(CODE_ALPHABET)
    ok(classes.join(code, "phone-1"))
    first = classes.student_view(code, "phone-1")
    assert (first.status, first.page, first.slide, first.question, first.nickname) == (Status.LIVE, "ngram", 0, None, None)

    ok(classes.instructor_action(code, token, 1, Advance("decoding", 3)))
    moved = classes.student_view(code, "phone-1")
    assert (moved.page, moved.slide) == ("decoding", 3) and moved.stamp != first.stamp

    ok(classes.instructor_action(code, token, 2, NUMBER_Q))
    asked = classes.student_view(code, "phone-1")
    assert asked.question.question_id == "q-pi" and asked.question.tolerance == 0.01 and not asked.question.revealed
    assert asked.answer is None and asked.own_correct is None and "3.14159" not in asked.to_json()
    assert ok(classes.answer(code, "phone-1", "q-pi", " 3.14 ")).value == "3.14"
    ok(classes.join(code, "phone-2"))
    ok(classes.answer(code, "phone-2", "q-pi", "2.5"))

    before = classes.projector_view(code, token)
    assert (before.status, before.joined, before.answered) == (Status.LIVE, 2, 2)
    assert sum(before.histogram.counts) == 2 and before.histogram.band is None
    assert before.answer is None and before.share_correct is None and "3.14159" not in before.to_json()

    ok(classes.instructor_action(code, token, 3, Reveal()))
    mine = classes.student_view(code, "phone-1")
    assert (mine.answer, mine.own_answer, mine.own_correct, mine.question.revealed) == ("3.14159", "3.14", True, True)
    assert classes.student_view(code, "phone-2").own_correct is False
    after = classes.projector_view(code, token)
    assert after.answer == "3.14159" and after.share_correct == 0.5
    assert after.histogram.band == pytest.approx((3.13159, 3.15159))
    assert after.histogram.edges[0] <= 2.5 and after.histogram.edges[-1] >= after.histogram.band[1]


def test_a_changed_answer_replaces_the_earlier_one_until_the_reveal(make):
    classes, _ = make()
    code, token = started(classes)
    ok(classes.join(code, "phone-1"))
    ok(classes.instructor_action(code, token, 1, NUMBER_Q))
    ok(classes.answer(code, "phone-1", "q-pi", "1"))
    ok(classes.answer(code, "phone-1", "q-pi", "3.145"))
    view = classes.projector_view(code, token)
    assert view.answered == 1 and sum(view.histogram.counts) == 1
    ok(classes.instructor_action(code, token, 2, Reveal()))
    refused(classes.answer(code, "phone-1", "q-pi", "99"), Problem.NO_OPEN_QUESTION)
    mine = classes.student_view(code, "phone-1")
    assert mine.own_answer == "3.145" and mine.own_correct is True


def test_choice_questions_count_each_choice_and_hide_which_is_right(make):
    classes, _ = make()
    code, token = started(classes)
    for phone in ("a", "b", "c"):
        ok(classes.join(code, phone))
    ok(classes.instructor_action(code, token, 1, CHOICE_Q))
    ok(classes.answer(code, "a", "q-next", "Zanzibar"))
    ok(classes.answer(code, "b", "q-next", "cat"))
    refused(classes.answer(code, "c", "q-next", "dog"), Problem.BAD_ANSWER)
    view = classes.student_view(code, "a")
    assert view.question.choices == ("cat", "Zanzibar", "mat") and view.answer is None and view.own_correct is None
    assert view.to_json().count("Zanzibar") == 2  # in the choices and as the student's own answer, nowhere else
    assert classes.student_view(code, "c").to_json().count("Zanzibar") == 1  # only in the choices
    projector = classes.projector_view(code, token)
    assert projector.choice_counts == {"cat": 1, "Zanzibar": 1, "mat": 0} and projector.answer is None
    ok(classes.instructor_action(code, token, 2, Reveal()))
    assert classes.projector_view(code, token).share_correct == 0.5
    assert [classes.student_view(code, p).own_correct for p in "abc"] == [True, False, None]


def test_reset_clears_the_answers_and_opens_the_question_again(make):
    classes, _ = make()
    code, token = started(classes)
    ok(classes.join(code, "a"))
    refused(classes.instructor_action(code, token, 1, Reset()), Problem.NO_OPEN_QUESTION)
    refused(classes.instructor_action(code, token, 2, Reveal()), Problem.NO_OPEN_QUESTION)
    ok(classes.instructor_action(code, token, 3, NUMBER_Q))
    ok(classes.answer(code, "a", "q-pi", "3"))
    ok(classes.instructor_action(code, token, 4, Reveal()))
    ok(classes.instructor_action(code, token, 5, Reset()))
    view = classes.student_view(code, "a")
    assert view.own_answer is None and view.answer is None and not view.question.revealed
    assert classes.projector_view(code, token).answered == 0
    ok(classes.answer(code, "a", "q-pi", "3.14"))
    assert classes.projector_view(code, token).answered == 1


def test_close_ends_the_class_and_frees_its_place(make):
    classes, _ = make(ClassLimits(classes_per_server=1))
    code, token = started(classes)
    ok(classes.join(code, "a"))
    refused(classes.start_class("ngram", 0), Problem.SERVER_FULL)
    ok(classes.instructor_action(code, token, 1, Close()))
    assert classes.student_view(code, "a").status is Status.CLOSED
    assert classes.projector_view(code, token).status is Status.CLOSED
    refused(classes.join(code, "b"), Problem.CLASS_CLOSED)
    refused(classes.answer(code, "a", "q", "1"), Problem.CLASS_CLOSED)
    refused(classes.instructor_action(code, token, 2, Advance("x")), Problem.CLASS_CLOSED)
    started(classes)


# ------------------------------------------------------------------------------------------------
# Bad input


@pytest.mark.parametrize(("text", "value"), [
    ("3.5", 3.5), (" -2e-3 ", -0.002), (".5", 0.5), ("7.", 7.0), ("+7", 7.0), ("1/4", 0.25), ("３．５", 3.5),
    ("－２", -2.0), ("3。5", 3.5), ("\u22121", -1.0), ("1 000", 1000.0),
])
def test_numbers_students_type(text, value):
    assert parse_number(text) == value


@pytest.mark.parametrize("text", ["", " ", "abc", "nan", "inf", "-Infinity", "1_000", "25%", "1,5", "0x10", "1/0",
                                  "1e999", "1/2/3", "٣", "--1", "1e", "e5"])
def test_not_numbers(text):
    assert parse_number(text) is None


def test_answers_are_validated(make):
    classes, _ = make(ClassLimits(answers_burst=100.0, answer_chars=10))
    code, token = started(classes)
    ok(classes.join(code, "a"))
    refused(classes.answer(code, "a", "q-pi", "3"), Problem.NO_OPEN_QUESTION)  # nothing asked yet
    ok(classes.instructor_action(code, token, 1, NUMBER_Q))
    refused(classes.answer(code, "a", "q-pi", "three"), Problem.BAD_ANSWER)
    refused(classes.answer(code, "a", "q-pi", "nan"), Problem.BAD_ANSWER)
    refused(classes.answer(code, "a", "q-pi", "1" * 11), Problem.TOO_LONG)
    refused(classes.answer(code, "a", "q-pi", 3.0), Problem.BAD_ANSWER)  # not text
    refused(classes.answer(code, "a", "q-other", "3"), Problem.NO_OPEN_QUESTION)
    refused(classes.answer(code, "stranger", "q-pi", "3"), Problem.NOT_JOINED)
    refused(classes.answer(code, "<script>", "q-pi", "3"), Problem.BAD_REQUEST)
    refused(classes.join(code, ""), Problem.BAD_REQUEST)
    assert classes.projector_view(code, token).answered == 0
    assert ok(classes.answer(code, "a", "q-pi", "３.１")).value == "3.1"


def test_bad_instructor_actions_are_refused(make):
    classes, _ = make()
    code, token = started(classes)
    bad = [Advance(""), Advance("x" * 500), Advance("ngram", -1), Advance("ngram", True),
           OpenQuestion("q", "number", answer="nan"), OpenQuestion("q", "number", answer=1.0, tolerance=-1),
           OpenQuestion("q", "number", answer=float("inf")), OpenQuestion("", "number", answer=1.0),
           OpenQuestion("q", "essay", answer="x"), OpenQuestion("q", "choice", answer="a", choices=("a",)),
           OpenQuestion("q", "choice", answer="z", choices=("a", "b")),
           OpenQuestion("q", "choice", answer="a", choices=("a", "a")), "reveal"]
    for seq, action in enumerate(bad, start=1):
        refused(classes.instructor_action(code, token, seq, action), Problem.BAD_REQUEST)
    for seq in (0, -1, "7", 1.0, True, None):
        refused(classes.instructor_action(code, token, seq, Advance("x")), Problem.BAD_REQUEST)
    refused(classes.start_class("", 0), Problem.BAD_REQUEST)
    assert classes.student_view(code, "a").status is Status.NOT_JOINED


def test_a_wrong_or_expired_code_says_so(make):
    classes, clock = make(ClassLimits(answers_burst=100.0, ttl_seconds=600.0))
    code, token = started(classes)
    for wrong in ("ZZZZZ", "", "<b>A</b>", None, code + "A", "O0O0O"):
        refused(classes.join(wrong, "a"), Problem.NO_SUCH_CLASS)
        assert classes.student_view(wrong, "a").status is Status.NO_SUCH_CLASS
        assert classes.projector_view(wrong, token).status is Status.NO_SUCH_CLASS
        refused(classes.instructor_action(wrong, token, 1, Advance("x")), Problem.NO_SUCH_CLASS)
    ok(classes.join(f"  {code.lower()} ", "a"))  # typed by hand
    ok(classes.instructor_action(code, token, 1, NUMBER_Q))
    clock.advance(500)
    ok(classes.answer(code, "a", "q-pi", "3"))  # activity: the class lives 600 s from now
    clock.advance(500)
    assert classes.student_view(code, "a").status is Status.LIVE
    clock.advance(101)
    assert classes.student_view(code, "a").status is Status.NO_SUCH_CLASS
    assert classes.student_poll(code, "a", None).status is Status.NO_SUCH_CLASS
    assert classes.projector_view(code, token).status is Status.NO_SUCH_CLASS
    refused(classes.answer(code, "a", "q-pi", "3"), Problem.NO_SUCH_CLASS)


def test_nicknames_are_plain_text(make):
    classes, _ = make(ClassLimits(answers_burst=100.0, nickname_chars=40))
    code, token = started(classes)
    markup = "<b>Ada</b> **bold** [x](javascript:alert(1))"[:40]
    ok(classes.join(code, "a", markup))
    ok(classes.join(code, "b", "Bob\x00\u202e\n  Lee"))
    ok(classes.join(code, "c"))
    assert classes.student_view(code, "a").nickname == markup
    assert classes.student_view(code, "b").nickname == "Bob Lee"
    assert classes.student_view(code, "c").nickname is None
    assert classes.projector_view(code, token).nicknames == sorted([markup, "Bob Lee"])
    refused(classes.join(code, "d", "x" * 41), Problem.TOO_LONG)
    refused(classes.join(code, "d", 42), Problem.BAD_REQUEST)
    ok(classes.join(code, "c", "Cleo"))  # joining again renames
    assert classes.student_view(code, "c").nickname == "Cleo" and classes.projector_view(code, token).joined == 3
    assert clean_nickname("👨\u200d👩\u200d👧 fam") == "👨\u200d👩\u200d👧 fam"  # emoji joiners stay


# ------------------------------------------------------------------------------------------------
# Caps and abuse


def test_caps_on_students_and_classes(make):
    classes, clock = make(ClassLimits(answers_burst=100.0, students_per_class=3, classes_per_server=2, ttl_seconds=600))
    code, _ = started(classes)
    for phone in ("a", "b", "c"):
        ok(classes.join(code, phone))
    refused(classes.join(code, "d"), Problem.CLASS_FULL)
    ok(classes.join(code, "a", "again"))  # a joined browser may join again
    started(classes)
    refused(classes.start_class("ngram", 0), Problem.SERVER_FULL)
    clock.advance(601)  # both classes expired: their places are free
    started(classes)
    started(classes)


def test_answers_are_rate_limited_per_browser_across_replicas(make):
    limits = ClassLimits(answers_burst=3.0, answers_per_second=0.5)
    one, clock = make(limits)
    other, _ = make(limits)  # a second server sharing the store
    code, token = started(one)
    ok(one.join(code, "a"))  # the join takes one token
    ok(other.join(code, "b"))
    ok(one.instructor_action(code, token, 1, NUMBER_Q))
    ok(other.answer(code, "a", "q-pi", "1"))
    ok(one.answer(code, "a", "q-pi", "2"))
    refused(other.answer(code, "a", "q-pi", "3"), Problem.TOO_FAST)
    refused(one.answer(code, "a", "q-pi", "3"), Problem.TOO_FAST)
    ok(one.answer(code, "b", "q-pi", "3"))  # another browser has its own bucket
    clock.advance(2.0)  # one token back
    ok(other.answer(code, "a", "q-pi", "4"))
    refused(one.answer(code, "a", "q-pi", "5"), Problem.TOO_FAST)
    assert one.student_view(code, "a").own_answer == "4.0"


# ------------------------------------------------------------------------------------------------
# Security


def student_tokens(code: str, token: str) -> list[object]:
    """What a student's session could send instead of the instructor token."""
    return [None, "", "a", code, secrets.token_urlsafe(24), token[:-1] + ("A" if token[-1] != "A" else "B"),
            hashlib.sha256(token.encode()).hexdigest(), token + " ", token.upper() if token.upper() != token else "x",
            b"" + token.encode(), 12345]


def test_every_instructor_action_from_a_student_session_is_refused_and_logged(make, caplog):
    classes, _ = make()
    code, token = started(classes)
    ok(classes.join(code, "a"))
    ok(classes.instructor_action(code, token, 1, NUMBER_Q))
    ok(classes.answer(code, "a", "q-pi", "3"))
    before = classes.student_view(code, "a")
    actions = [Advance("elsewhere", 9), CHOICE_Q, Reveal(), Reset(), Close()]
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        for seq, action in enumerate(actions, start=2):
            for fake in student_tokens(code, token):
                caplog.clear()
                refused(classes.instructor_action(code, fake, seq, action), Problem.NOT_INSTRUCTOR)
                assert "wrong instructor token" in caplog.text and code in caplog.text
                assert token not in caplog.text
        for fake in student_tokens(code, token):
            view = classes.projector_view(code, fake)
            assert view.status is Status.NOT_INSTRUCTOR and view.question is None and view.joined == 0
    assert classes.student_view(code, "a") == before  # nothing changed
    ok(classes.instructor_action(code, token, 2, Reveal()))  # the forgeries did not use up the numbers


def test_a_replayed_instructor_action_is_refused_and_logged(make, caplog):
    classes, _ = make()
    code, token = started(classes)
    assert classes.projector_view(code, token).seq == 0
    ok(classes.instructor_action(code, token, 1, Advance("decoding", 1)))
    ok(classes.instructor_action(code, token, 5, Advance("decoding", 2)))
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        refused(classes.instructor_action(code, token, 5, Advance("decoding", 2)), Problem.REPLAYED)
        refused(classes.instructor_action(code, token, 1, Advance("decoding", 1)), Problem.REPLAYED)
    assert "replayed" in caplog.text
    assert classes.projector_view(code, token).seq == 5
    assert classes.projector_view(code, token).slide == 2
    ok(classes.instructor_action(code, token, 6, Advance("decoding", 3)))


def test_the_token_and_the_answer_never_reach_a_student(make):
    """Every student view of a lesson, serialised, is searched for the token, its hash, and the
    answer before the reveal."""
    classes, _ = make()
    code, token = started(classes)
    secrets_ = [token, hashlib.sha256(token.encode()).hexdigest()]
    seen: list[str] = []

    def look(phone: str = "a") -> None:
        seen.extend(v.to_json() for v in (classes.student_view(code, phone), classes.student_poll(code, phone, None)))

    look()
    ok(classes.join(code, "a", "Ada"))
    look()
    ok(classes.instructor_action(code, token, 1, OpenQuestion("q", "number", answer="2.718281", tolerance=0.001)))
    look()
    ok(classes.answer(code, "a", "q", "1.5"))
    look()
    look("not-joined")
    assert not any("2.718281" in text for text in seen)
    ok(classes.instructor_action(code, token, 2, Reveal()))
    look()
    assert "2.718281" in seen[-1]
    ok(classes.instructor_action(code, token, 3, Close()))
    look()
    assert not any(secret in text for text in seen for secret in secrets_)
    assert all(json.loads(text)["code"] in (code, "") for text in seen)


# ------------------------------------------------------------------------------------------------
# Load and polling


def test_sixty_students_answering_at_once_are_all_counted_once(make):
    classes, _ = make()
    code, token = started(classes)
    ok(classes.instructor_action(code, token, 1, NUMBER_Q))
    students = 60
    barrier = threading.Barrier(students)
    problems: list[object] = []

    def student(i: int) -> None:
        try:
            barrier.wait(timeout=60)
            phone = f"phone-{i}"
            ok(classes.join(code, phone))
            for value in (i, i + 0.25, i + 0.5):  # changes of mind: only the last one counts
                ok(classes.answer(code, phone, "q-pi", str(value)))
        except BaseException as error:  # noqa: BLE001 - reported below
            problems.append(error)

    threads = [threading.Thread(target=student, args=(i,)) for i in range(students)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not problems and not any(t.is_alive() for t in threads)
    view = classes.projector_view(code, token)
    assert (view.joined, view.answered, sum(view.histogram.counts)) == (students, students, students)
    assert all(classes.student_view(code, f"phone-{i}").own_answer == repr(i + 0.5) for i in range(students))


def test_sixty_students_joining_at_once_fill_the_class_exactly(make):
    classes, _ = make(ClassLimits(answers_burst=100.0, students_per_class=25))
    code, token = started(classes)
    barrier = threading.Barrier(60)
    results: list[object] = []

    def student(i: int) -> None:
        barrier.wait(timeout=60)
        results.append(classes.join(code, f"phone-{i}"))

    threads = [threading.Thread(target=student, args=(i,)) for i in range(60)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert sum(isinstance(r, Accepted) for r in results) == 25
    assert all(r.problem is Problem.CLASS_FULL for r in results if isinstance(r, Refused)) and len(results) == 60
    assert classes.projector_view(code, token).joined == 25


def test_no_answer_is_counted_after_the_reveal(make):
    """Students answering while the instructor reveals: what the projector counted when the reveal
    returned is what it counts at the end, and every student's last accepted answer is theirs."""
    classes, _ = make(ClassLimits(answers_burst=1000.0))
    code, token = started(classes)
    ok(classes.instructor_action(code, token, 1, NUMBER_Q))
    students = 30
    for i in range(students):
        ok(classes.join(code, f"phone-{i}"))
    going = threading.Barrier(students + 1)
    last_accepted: dict[str, str] = {}
    unexpected: list[object] = []

    def student(i: int) -> None:
        phone = f"phone-{i}"
        going.wait(timeout=60)
        for attempt in range(500):
            result = classes.answer(code, phone, "q-pi", str(i + attempt / 1000))
            if isinstance(result, Refused):
                if result.problem is not Problem.NO_OPEN_QUESTION:
                    unexpected.append(result)
                return
            last_accepted[phone] = result.value

    threads = [threading.Thread(target=student, args=(i,)) for i in range(students)]
    for thread in threads:
        thread.start()
    going.wait(timeout=60)
    ok(classes.instructor_action(code, token, 2, Reveal()))
    at_reveal = classes.projector_view(code, token).answered
    for thread in threads:
        thread.join(timeout=120)
    assert not unexpected and not any(t.is_alive() for t in threads)
    assert classes.projector_view(code, token).answered == at_reveal == len(last_accepted)
    for phone, value in last_accepted.items():
        assert classes.student_view(code, phone).own_answer == value


class RevealBeforeWrite:
    """A store through which the instructor reveals after an answer has read the question as open
    and before the answer is written (at its rate-limit step): the tightest race, made certain."""

    def __init__(self, store, reveal) -> None:
        self.store, self.reveal = store, reveal

    def __getattr__(self, name):
        return getattr(self.store, name)

    def take_token(self, *args, **kwargs):
        self.reveal()
        return self.store.take_token(*args, **kwargs)


def test_an_answer_overtaken_by_the_reveal_is_refused(make):
    classes, clock = make()
    code, token = started(classes)
    ok(classes.join(code, "a"))
    ok(classes.instructor_action(code, token, 1, NUMBER_Q))
    racing = LiveClasses(RevealBeforeWrite(classes.store, lambda: ok(classes.instructor_action(code, token, 2, Reveal()))),
                         classes.limits, clock=clock, namespace=classes._ns)
    refused(racing.answer(code, "a", "q-pi", "3.14"), Problem.NO_OPEN_QUESTION)
    assert classes.projector_view(code, token).answered == 0
    assert classes.student_view(code, "a").own_answer is None


class CountingStore:
    """A store that counts the calls made through it."""

    def __init__(self, store) -> None:
        self.store, self.calls = store, []

    def __getattr__(self, name):
        method = getattr(self.store, name)

        def counted(*args, **kwargs):
            self.calls.append(name)
            return method(*args, **kwargs)

        return counted


def test_an_idle_students_poll_is_one_small_read(make):
    classes, clock = make()
    code, token = started(classes)
    ok(classes.join(code, "a"))
    view = classes.student_view(code, "a")
    counting = CountingStore(classes.store)
    polling = LiveClasses(counting, classes.limits, clock=clock, namespace=classes._ns)
    for _ in range(3):
        assert polling.student_poll(code, "a", view.stamp) is None
    assert counting.calls == ["read"] * 3
    ok(classes.instructor_action(code, token, 1, Advance("decoding", 2)))
    fresh = polling.student_poll(code, "a", view.stamp)
    assert (fresh.page, fresh.slide) == ("decoding", 2) and fresh.stamp != view.stamp
    assert polling.student_poll(code, "a", fresh.stamp) is None


def test_a_new_class_with_a_reused_code_is_not_mistaken_for_the_old_one(make, monkeypatch):
    classes, clock = make(ClassLimits(answers_burst=100.0, ttl_seconds=600))
    code, token = started(classes)
    ok(classes.join(code, "a"))
    ok(classes.instructor_action(code, token, 1, NUMBER_Q))
    ok(classes.answer(code, "a", "q-pi", "3"))
    old = classes.student_view(code, "a")
    clock.advance(601)
    letters = iter(code)
    monkeypatch.setattr("server.live_class.secrets.choice", lambda alphabet: next(letters))
    again, new_token = started(classes)  # the same code drawn again for a new class
    assert again == code and new_token != token
    assert classes.student_poll(code, "a", old.stamp).status is Status.NOT_JOINED
    ok(classes.join(code, "a"))
    ok(classes.instructor_action(code, new_token, 1, NUMBER_Q))
    assert classes.student_view(code, "a").own_answer is None
    assert classes.projector_view(code, new_token).answered == 0
    assert classes.projector_view(code, token).status is Status.NOT_INSTRUCTOR


# ------------------------------------------------------------------------------------------------
# An unreachable store


class DownStore:
    """A store that cannot be reached."""

    def __getattr__(self, name):
        def down(*args, **kwargs):
            raise StoreUnavailable("down")

        return down


def every_call(classes: LiveClasses, code: str, token: str, stamp: str | None) -> list[object]:
    return [classes.start_class("ngram", 0), classes.join(code, "a"), classes.join(code, "new", "Nick"),
            classes.answer(code, "a", "q-pi", "3"), classes.instructor_action(code, token, 99, Advance("x")),
            classes.instructor_action(code, token, 100, Reveal()), classes.student_view(code, "a"),
            classes.student_poll(code, "a", stamp), classes.projector_view(code, token)]


def assert_paused(results: list[object]) -> None:
    for result in results:
        if isinstance(result, Refused):
            assert result.problem is Problem.PAUSED, result
        else:
            assert result.status is Status.PAUSED, result


def test_an_unreachable_store_pauses_the_class_without_raising():
    assert_paused(every_call(LiveClasses(DownStore()), "ABCDE", "token", "x.1"))


def test_redis_stopped_mid_lesson_pauses_and_resumes(tmp_path):
    """With ``--appendonly yes`` (the production recommendation) a restart keeps the class."""
    require_redis_server()
    from server.class_store import RedisClassStore

    server = RedisServer(tmp_path, appendonly=True)
    server.start()
    store = RedisClassStore(server.url)
    try:
        classes = LiveClasses(store, GENEROUS)
        code, token = started(classes)
        for phone in ("a", "b", "c"):
            ok(classes.join(code, phone))
        ok(classes.instructor_action(code, token, 1, NUMBER_Q))
        ok(classes.answer(code, "a", "q-pi", "3"))
        stamp = classes.student_view(code, "a").stamp

        server.stop()
        assert_paused(every_call(classes, code, token, stamp))

        server.start()
        assert classes.student_view(code, "a").status is Status.LIVE
        ok(classes.answer(code, "b", "q-pi", "3.14"))
        ok(classes.answer(code, "c", "q-pi", "3.5"))
        view = classes.projector_view(code, token)
        assert (view.status, view.joined, view.answered) == (Status.LIVE, 3, 3)
        ok(classes.instructor_action(code, token, 2, Reveal()))
        assert classes.student_view(code, "b").own_correct is True
    finally:
        store.close()
        server.stop()


# ------------------------------------------------------------------------------------------------
# The stores themselves


@pytest.fixture(params=["memory", "redis"])
def store(request):
    if request.param == "memory":
        yield InProcessClassStore(FakeClock())
        return
    from server.class_store import RedisClassStore

    made = RedisClassStore(request.getfixturevalue("redis_url"))
    yield made
    made.close()


def test_store_operations(store):
    key, guard = f"t-{uuid.uuid4().hex}", f"g-{uuid.uuid4().hex}"
    assert store.read_all(key) == {} and store.read(key, ["x"]) == [None] and store.size(key) == 0
    assert store.write(key, {"a": "1"}, 60, bump="v") == 1
    assert store.write(key, {"b": "2"}, 60, bump="v") == 2
    assert store.write(key, {"c": "3"}, 60) is None
    assert store.read_all(key) == {"a": "1", "b": "2", "c": "3", "v": "2"} and store.size(key) == 4
    assert not store.write_if(key, "w", "x", 60, guard_key=guard, guard_field="open", expected="1")
    store.write(guard, {"open": "1"}, 60)
    assert store.write_if(key, "w", "x", 60, guard_key=guard, guard_field="open", expected="1")
    assert store.read(key, ["w", "nope"]) == ["x", None]
    assert [store.add_capped(f"{key}:s", f, "", 2, 60) for f in "aab" + "c"] == [
        Added.ADDED, Added.EXISTS, Added.ADDED, Added.FULL]
    assert not store.raise_to(f"{key}:absent", "seq", 1)
    assert store.raise_to(key, "seq", 0) and store.raise_to(key, "seq", 3)
    assert not store.raise_to(key, "seq", 3) and not store.raise_to(key, "seq", 2)
    assert [store.take_token(f"{key}:r", "b", 2, 1.0, 100.0, 60) for _ in range(3)] == [True, True, False]
    assert store.take_token(f"{key}:r", "b", 2, 1.0, 101.0, 60)
    assert not store.take_token(f"{key}:r", "b", 2, 1.0, 50.0, 60)  # a clock behind refills nothing
    store.remove(key, ["a", "b"])
    assert "a" not in store.read_all(key)
    store.delete([key, guard])
    assert store.read_all(key) == {} and store.read_all(guard) == {}


def test_in_process_keys_expire():
    clock = FakeClock()
    store = InProcessClassStore(clock)
    store.write("k", {"a": "1"}, 10)
    store.write("other", {"a": "1"}, 100)
    clock.advance(9)
    store.expire(["k"], 10)
    clock.advance(9)
    assert store.read_all("k") == {"a": "1"}
    clock.advance(2)
    assert store.read_all("k") == {} and store.size("k") == 0
    store.expire(["k"], 10)  # an expired key is not brought back
    assert store.read_all("k") == {}
    clock.advance(100)
    store.write("new", {"a": "1"}, 10)  # a write sweeps the expired keys away
    assert set(store._hashes) == {"new"}


def test_redis_keys_carry_a_time_to_live(redis_url):
    import redis

    from server.class_store import RedisClassStore

    classes = LiveClasses(RedisClassStore(redis_url), ClassLimits(ttl_seconds=600), namespace=f"ttl-{uuid.uuid4().hex}:")
    code, token = started(classes)
    ok(classes.join(code, "a"))
    ok(classes.instructor_action(code, token, 1, NUMBER_Q))
    ok(classes.answer(code, "a", "q-pi", "3"))
    client = redis.Redis.from_url(redis_url)
    try:
        keys = client.keys(f"{classes._ns}*")
        assert len(keys) == 6  # the registry, meta, secret, students, rate, answers
        assert all(0 < client.ttl(key) <= 600 + 300 for key in keys)
    finally:
        client.close()
        classes.store.close()


def test_settings_from_the_environment(monkeypatch, request):
    from server.class_store import RedisClassStore
    from server.live_class import live_classes, store_from_env

    for name in ("LMLAB_CLASS_HOURS", "LMLAB_CLASS_STUDENTS", "LMLAB_CLASSES", "LMLAB_REDIS_URL"):
        monkeypatch.delenv(name, raising=False)
    assert ClassLimits.from_env() == ClassLimits()
    assert isinstance(store_from_env(), InProcessClassStore)
    # the process's instance, made (if not yet) from the defaults: made under the settings below, it
    # would cap every later test of this process at one class
    assert live_classes() is live_classes()
    monkeypatch.setenv("LMLAB_CLASS_HOURS", "0.5")
    monkeypatch.setenv("LMLAB_CLASS_STUDENTS", "not a number")
    monkeypatch.setenv("LMLAB_CLASSES", "0")
    assert ClassLimits.from_env() == ClassLimits(ttl_seconds=1800.0, classes_per_server=1)
    if Path(REDIS_SERVER).exists():
        monkeypatch.setenv("LMLAB_REDIS_URL", request.getfixturevalue("redis_url"))
        made = store_from_env()
        assert isinstance(made, RedisClassStore)
        made.close()
