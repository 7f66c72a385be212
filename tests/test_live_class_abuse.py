"""The live class (server/live_class.py) against bad input, abuse and forgery: numbers and answers
students type, bad instructor actions, wrong or expired codes, nicknames, caps and rate limits, forged
and replayed instructor actions, and secrets that must never reach a student; on both stores."""
from __future__ import annotations

import hashlib
import json
import logging
import secrets

import pytest

from server.live_class import (
    Advance, ClassLimits, Close, OpenQuestion, Problem, Reset, Reveal, Status, clean_nickname, parse_number,
)
from tests import live_class_fixtures
from tests.live_class_fixtures import CHOICE_Q, LOGGER, NUMBER_Q, ok, refused, started

make, redis_url = live_class_fixtures.make, live_class_fixtures.redis_url  # fixtures: the store back ends, the Redis server


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
    assert classes.student_view(code, "a").status == Status.NO_SUCH_CLASS  # the first class is gone


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
