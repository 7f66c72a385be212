"""The live class's shared state (issue 37): server/live_class.py on both stores of
server/class_store.py. The Redis tests start their own ``redis-server`` on a free port in a
temporary directory; they skip where it is not installed (and fail in CI, which installs it)."""
from __future__ import annotations

import threading

import pytest

from server.live_class import (
    CODE_ALPHABET, Accepted, Advance, ClassLimits, Close, LiveClasses, Problem, Refused, Reset, Reveal, Status,
)
from tests import live_class_fixtures
from tests.live_class_fixtures import CHOICE_Q, NUMBER_Q, ok, refused, started

make, redis_url = live_class_fixtures.make, live_class_fixtures.redis_url  # fixtures: the store back ends, the Redis server


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
