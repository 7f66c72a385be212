"""A live class (issue 37): students answer on their phones, the projector shows what the class
predicts. The back end only: class state in a :class:`~server.class_store.ClassStore`, no Streamlit.

The rules
---------
* ``start_class(page, slide)`` gives a short code (5 characters without look-alikes such as 0/O,
  1/I/L) for the join link and QR code, and an instructor token (``secrets``). Only a SHA-256 of
  the token is stored, compared with ``hmac.compare_digest``; no view ever carries it.
* ``join(code, browser_id, nickname)``: anonymous unless a nickname is given; the nickname is plain
  text, stored and returned exactly as typed (less control characters): the UI shows it as text.
* ``instructor_action(code, token, seq, action)``: :class:`Advance`, :class:`OpenQuestion`,
  :class:`Reveal`, :class:`Reset`, :class:`Close`. A wrong or missing token is refused and logged;
  ``seq`` must be larger than every sequence number accepted before (the projector view says the
  last one), so a replayed action is refused and logged too.
* ``answer(code, browser_id, question_id, value)``: only a joined browser, only while the question
  is open; a number (plain or full-width digits, ``1/3``) or exactly one of the choices, at most
  ``answer_chars`` characters; a token bucket per browser in the store (it holds across replicas).
  A new answer replaces the browser's earlier one; after the reveal answers are refused.
* Views: ``student_view`` (where to follow, the question without its answer, the browser's own
  answer and, after the reveal, its result) and ``projector_view`` (counts and the distribution).
* Caps: students per class, classes per store, answer and nickname length. A class lives
  ``LMLAB_CLASS_HOURS`` (default 4) after its last activity; then its code says "no such class".
* Nothing raises for bad input or an unreachable store: actions return :class:`Refused` (a
  :class:`Problem` code, an English detail); views carry a :class:`Status` (``paused`` while away).

The store (in this process, or Redis with ``LMLAB_REDIS_URL``, shared by every replica) is chosen by
:func:`server.class_store.store_from_env`; its docstring says how to run Redis for a class.

In the pages: ui/live_class.py; a student's page polls ``student_poll`` (one read of the class's
stamp when nothing changed), the projector polls ``projector_view`` and sends ``view.seq + 1``.
"""
from __future__ import annotations

import json
import logging
import math
import secrets
import threading
import time
from collections.abc import Callable

from server.class_store import Added, ClassStore, StoreUnavailable, store_from_env
from server.live_answers import (CODE_ALPHABET, CODE_LENGTH, check_place, clean_nickname, hash_token, is_correct,
                                 normal_code, parse_number, token_matches, valid_browser)
from server.live_views import question_view, stamp, with_distribution
from server.live_class_types import (NO_CLASS, PAUSED, STATUS_OF, Accepted, Action, Advance, ClassLimits, Close, OpenQuestion, Problem,
                                     ProjectorView, Refused, Reset, Reveal, Started, Status, StudentView)

_log = logging.getLogger(__name__)

STORE_SLACK_SECONDS = 300.0  # the store keeps keys this much longer than the class lives
CLOSED_KEEP_SECONDS = 900.0  # a closed class says "closed" this long, then "no such class"
MAX_CHOICES = 12
CHOICE_CHARS = 80
ID_CHARS = 80


class LiveClasses:
    """Every live class in one store. Thread-safe (all shared state is in the store). ``clock``
    (seconds) decides expiry and rate limits; ``namespace`` prefixes every key."""

    def __init__(self, store: ClassStore, limits: ClassLimits | None = None, *,
                 clock: Callable[[], float] = time.time, namespace: str = "lmlab:") -> None:
        self.store = store
        self.limits = limits or ClassLimits()
        self._clock = clock
        self._ns = namespace

    # Keys. The {code} hash tag keeps one class's keys in one Redis Cluster slot.
    def _registry(self) -> str:
        return f"{self._ns}classes"

    def _meta_key(self, code: str) -> str:
        return f"{self._ns}class:{{{code}}}:meta"

    def _key(self, code: str, meta: dict[str, str], part: str) -> str:
        return f"{self._ns}class:{{{code}}}:{meta['cid']}:{part}"

    def _answers_key(self, code: str, meta: dict[str, str]) -> str:
        return self._key(code, meta, f"answers:{meta.get('round', '0')}")

    @property
    def _store_ttl(self) -> float:
        return self.limits.ttl_seconds + STORE_SLACK_SECONDS

    # ----------------------------------------------------------------------------------------
    # Actions
    def start_class(self, page: str, slide: int = 0) -> Started | Refused:
        """A new class showing ``page`` and ``slide``: its code and the instructor's token."""
        if (bad := check_place(page, slide)) is not None:
            return bad
        try:
            return self._start(page, slide)
        except StoreUnavailable:
            return PAUSED

    def _start(self, page: str, slide: int) -> Started | Refused:
        now = self._clock()
        registry = self._registry()
        stale = [code for code, until in self.store.read_all(registry).items() if _float(until) <= now]
        self.store.remove(registry, stale)
        for _ in range(50):
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            added = self.store.add_capped(registry, code, repr(now + self.limits.ttl_seconds),
                                          self.limits.classes_per_server, self._store_ttl)
            if added is Added.FULL:
                return Refused(Problem.SERVER_FULL, "Too many classes are running on this server; close one or wait for one to end.")
            if added is Added.ADDED:
                break
        else:
            return Refused(Problem.SERVER_FULL, "No free class code was found; try again.")
        token = secrets.token_urlsafe(24)
        meta = {"cid": secrets.token_hex(6), "state": "live", "expires_at": repr(now + self.limits.ttl_seconds),
                "page": page, "slide": str(slide), "round": "0", "open_round": "", "phase": "none",
                "q_id": "", "q_kind": "", "q_choices": "[]", "q_tolerance": "0", "revealed": ""}
        self.store.delete([self._meta_key(code)])  # a class that had this code and ended
        self.store.write(self._key(code, meta, "secret"), {"token_hash": hash_token(token), "seq": "0", "answer": ""},
                         self._store_ttl)
        self.store.write(self._meta_key(code), meta, self._store_ttl, bump="version")
        _log.info("live class %s started", code)
        return Started(code, token)

    def join(self, code: str, browser_id: str, nickname: str | None = None) -> Accepted | Refused:
        """The browser joins the class (again: its nickname, if given, replaces the earlier one)."""
        if not valid_browser(browser_id):
            return Refused(Problem.BAD_REQUEST, "This browser has no valid id.")
        if nickname is not None and not isinstance(nickname, str):
            return Refused(Problem.BAD_REQUEST, "The nickname must be text.")
        name = clean_nickname(nickname) if nickname is not None else ""
        if len(name) > self.limits.nickname_chars:
            return Refused(Problem.TOO_LONG, f"A nickname has at most {self.limits.nickname_chars} characters.")
        try:
            found = self._live_meta(code)
            if isinstance(found, Refused):
                return found
            code, meta = found
            if not self._take_token(code, meta, browser_id):
                return Refused(Problem.TOO_FAST, "Too many requests from this browser; wait a moment.")
            students = self._key(code, meta, "students")
            added = self.store.add_capped(students, browser_id, name, self.limits.students_per_class, self._store_ttl)
            if added is Added.FULL:
                return Refused(Problem.CLASS_FULL, f"This class is full ({self.limits.students_per_class} students).")
            if added is Added.EXISTS and nickname is not None:
                self.store.write(students, {browser_id: name}, self._store_ttl)
            self._touch(code, meta)
            return Accepted(name)
        except StoreUnavailable:
            return PAUSED

    def answer(self, code: str, browser_id: str, question_id: str, value: str) -> Accepted | Refused:
        """The browser's answer to the open question (replacing its earlier one)."""
        if not valid_browser(browser_id):
            return Refused(Problem.BAD_REQUEST, "This browser has no valid id.")
        if not isinstance(value, str) or not isinstance(question_id, str):
            return Refused(Problem.BAD_ANSWER, "The answer must be text.")
        try:
            found = self._live_meta(code)
            if isinstance(found, Refused):
                return found
            code, meta = found
            if self.store.read(self._key(code, meta, "students"), [browser_id])[0] is None:
                return Refused(Problem.NOT_JOINED, "Join the class first.")
            if meta["phase"] != "open" or meta["q_id"] != question_id:
                return Refused(Problem.NO_OPEN_QUESTION, "This question is not open for answers (any more).")
            if not self._take_token(code, meta, browser_id):
                return Refused(Problem.TOO_FAST, "Too many answers from this browser; wait a moment.")
            checked = self._check_answer(meta, value)
            if isinstance(checked, Refused):
                return checked
            written = self.store.write_if(self._answers_key(code, meta), browser_id, checked, self._store_ttl,
                                          guard_key=self._meta_key(code), guard_field="open_round",
                                          expected=meta["round"])
            if not written:  # revealed, reset or replaced since we read the class
                return Refused(Problem.NO_OPEN_QUESTION, "This question is not open for answers (any more).")
            self._touch(code, meta)
            return Accepted(checked)
        except StoreUnavailable:
            return PAUSED

    def _check_answer(self, meta: dict[str, str], value: str) -> str | Refused:
        if len(value) > self.limits.answer_chars:
            return Refused(Problem.TOO_LONG, f"An answer has at most {self.limits.answer_chars} characters.")
        if meta["q_kind"] == "choice":
            choice = value.strip()
            if choice not in json.loads(meta["q_choices"]):
                return Refused(Problem.BAD_ANSWER, "Pick one of the choices.")
            return choice
        number = parse_number(value)
        if number is None:
            return Refused(Problem.BAD_ANSWER, "The answer must be a number, such as 0.25 or 1/4.")
        return repr(number)

    def instructor_action(self, code: str, token: str, seq: int, action: Action) -> Accepted | Refused:
        """Do ``action`` if ``token`` is the class's instructor token and ``seq`` is new."""
        try:
            found = self._live_meta(code)
            if isinstance(found, Refused):
                return found
            code, meta = found
            secret_key = self._key(code, meta, "secret")
            secret = self.store.read_all(secret_key)
            if not token_matches(token, secret.get("token_hash", "")):
                _log.warning("live class %s: %s refused, wrong instructor token", code, type(action).__name__)
                return Refused(Problem.NOT_INSTRUCTOR, "Only the instructor's link can do this.")
            if isinstance(seq, bool) or not isinstance(seq, int) or not 0 < seq < 2**53:
                return Refused(Problem.BAD_REQUEST, "The action has no valid sequence number.")
            if (bad := self._check_action(action)) is not None:
                return bad
            if not self.store.raise_to(secret_key, "seq", seq):
                _log.warning("live class %s: %s refused, sequence number %d replayed", code, type(action).__name__, seq)
                return Refused(Problem.REPLAYED, "This action was sent already.")
            result = self._apply(code, meta, secret_key, action)
            if isinstance(result, Accepted) and not isinstance(action, Close):
                self._touch(code, meta)
            return result
        except StoreUnavailable:
            return PAUSED

    def _check_action(self, action: Action) -> Refused | None:
        if isinstance(action, Advance):
            return check_place(action.page, action.slide)
        if isinstance(action, (Reveal, Reset, Close)):
            return None
        if not isinstance(action, OpenQuestion):
            return Refused(Problem.BAD_REQUEST, "Unknown instructor action.")
        if not isinstance(action.question_id, str) or not 0 < len(action.question_id) <= ID_CHARS:
            return Refused(Problem.BAD_REQUEST, "A question needs an id.")
        if action.kind == "number":
            if isinstance(action.answer, str):
                right = parse_number(action.answer)
            else:
                right = float(action.answer) if isinstance(action.answer, (int, float)) else None
            tolerance = action.tolerance
            if right is None or not math.isfinite(right) or not isinstance(tolerance, (int, float)) \
                    or not math.isfinite(tolerance) or tolerance < 0:
                return Refused(Problem.BAD_REQUEST, "A number question needs a finite answer and a tolerance ≥ 0.")
            return None
        if action.kind != "choice":
            return Refused(Problem.BAD_REQUEST, "A question is a number or a choice.")
        choices = action.choices
        if not (isinstance(choices, tuple) and 2 <= len(choices) <= MAX_CHOICES
                and all(isinstance(c, str) and c.strip() == c and 0 < len(c) <= CHOICE_CHARS for c in choices)
                and len(set(choices)) == len(choices)):
            return Refused(Problem.BAD_REQUEST, f"A choice question has 2 to {MAX_CHOICES} distinct, trimmed choices.")
        if action.answer not in choices:
            return Refused(Problem.BAD_REQUEST, "The answer must be one of the choices.")
        return None

    def _apply(self, code: str, meta: dict[str, str], secret_key: str, action: Action) -> Accepted | Refused:
        meta_key, ttl = self._meta_key(code), self._store_ttl
        if isinstance(action, Advance):
            self.store.write(meta_key, {"page": action.page, "slide": str(action.slide)}, ttl, bump="version")
        elif isinstance(action, OpenQuestion):
            if action.kind == "number":
                right = parse_number(action.answer) if isinstance(action.answer, str) else float(action.answer)
                answer, choices, tolerance = repr(right), [], float(action.tolerance)
            else:
                answer, choices, tolerance = str(action.answer), list(action.choices), 0.0
            self.store.write(secret_key, {"answer": answer}, ttl)
            new_round = self.store.write(meta_key, {}, ttl, bump="round")
            self.store.write(meta_key, {"q_id": action.question_id, "q_kind": action.kind,
                                        "q_choices": json.dumps(choices, ensure_ascii=False),
                                        "q_tolerance": repr(tolerance), "phase": "open",
                                        "open_round": str(new_round), "revealed": ""}, ttl, bump="version")
        elif isinstance(action, Reveal):
            if meta["phase"] != "open":
                return Refused(Problem.NO_OPEN_QUESTION, "There is no open question to reveal.")
            answer = self.store.read(secret_key, ["answer"])[0] or ""
            self.store.write(meta_key, {"phase": "revealed", "open_round": "", "revealed": answer}, ttl, bump="version")
        elif isinstance(action, Reset):
            if meta["phase"] == "none":
                return Refused(Problem.NO_OPEN_QUESTION, "There is no question to ask again.")
            new_round = self.store.write(meta_key, {}, ttl, bump="round")
            self.store.write(meta_key, {"phase": "open", "open_round": str(new_round), "revealed": ""}, ttl,
                             bump="version")
        else:  # Close
            until = self._clock() + CLOSED_KEEP_SECONDS
            self.store.write(meta_key, {"state": "closed", "expires_at": repr(until)}, ttl, bump="version")
            self.store.expire([meta_key, secret_key, self._key(code, meta, "students"), self._key(code, meta, "rate")],
                              CLOSED_KEEP_SECONDS)
            self.store.remove(self._registry(), [code])
            _log.info("live class %s closed", code)
        return Accepted()

    # ----------------------------------------------------------------------------------------
    # Views
    def student_poll(self, code: str, browser_id: str, stamp: str | None) -> StudentView | None:
        """None when the class has not changed since the view with ``stamp`` (one small read);
        else a fresh :meth:`student_view`. Pass the ``stamp`` of the last view shown (a paused or
        refused view has none, so the next poll reads everything)."""
        if stamp is not None:
            normal = normal_code(code)
            try:
                if normal is not None:
                    version, until, state, cid = self.store.read(
                        self._meta_key(normal), ["version", "expires_at", "state", "cid"])
                    if state == "live" and f"{cid}.{version}" == stamp and _float(until) > self._clock():
                        return None
            except StoreUnavailable:
                return StudentView(Status.PAUSED, normal or "")
        return self.student_view(code, browser_id)

    def student_view(self, code: str, browser_id: str) -> StudentView:
        """What the browser's page shows: never the token, and the answer only after the reveal."""
        normal = normal_code(code) or ""
        try:
            found = self._live_meta(code)
            if isinstance(found, Refused):
                return StudentView(STATUS_OF[found.problem], normal)
            code, meta = found
            if not valid_browser(browser_id):
                return StudentView(Status.NOT_JOINED, code)
            nickname = self.store.read(self._key(code, meta, "students"), [browser_id])[0]
            if nickname is None:
                return StudentView(Status.NOT_JOINED, code)
            question = question_view(meta)
            own = self.store.read(self._answers_key(code, meta), [browser_id])[0] if question else None
            revealed = question is not None and question.revealed
            right = meta["revealed"] if revealed else None
            correct = (is_correct(meta["q_kind"], own, meta["revealed"], float(meta["q_tolerance"]))
                       if revealed and own is not None else None)
            return StudentView(Status.LIVE, code, stamp=stamp(meta), page=meta["page"], slide=int(meta["slide"]),
                               question=question, own_answer=own, answer=right, own_correct=correct,
                               nickname=nickname or None)
        except StoreUnavailable:
            return StudentView(Status.PAUSED, normal)

    def projector_view(self, code: str, token: str) -> ProjectorView:
        """What the projector shows; refused (status ``not_instructor``, logged) without the token."""
        normal = normal_code(code) or ""
        try:
            found = self._live_meta(code)
            if isinstance(found, Refused):
                return ProjectorView(STATUS_OF[found.problem], normal)
            code, meta = found
            secret = self.store.read_all(self._key(code, meta, "secret"))
            if not token_matches(token, secret.get("token_hash", "")):
                _log.warning("live class %s: projector view refused, wrong instructor token", code)
                return ProjectorView(Status.NOT_INSTRUCTOR, code)
            students = self.store.read_all(self._key(code, meta, "students"))
            question = question_view(meta)
            answers = list(self.store.read_all(self._answers_key(code, meta)).values()) if question else []
            view = ProjectorView(Status.LIVE, code, stamp=stamp(meta), seq=int(secret.get("seq", "0")),
                                 page=meta["page"], slide=int(meta["slide"]), joined=len(students),
                                 nicknames=sorted(name for name in students.values() if name),
                                 question=question, answered=len(answers))
            if question is None:
                return view
            return with_distribution(view, meta, answers)
        except StoreUnavailable:
            return ProjectorView(Status.PAUSED, normal)

    # ----------------------------------------------------------------------------------------
    # Helpers
    def _live_meta(self, code: str) -> tuple[str, dict[str, str]] | Refused:
        """The class's code (normalised) and state, or why there is none. May raise StoreUnavailable."""
        normal = normal_code(code)
        if normal is None:
            return NO_CLASS
        meta = self.store.read_all(self._meta_key(normal))
        if not meta or _float(meta.get("expires_at")) <= self._clock() or "cid" not in meta:
            return NO_CLASS
        if meta.get("state") != "live":
            return Refused(Problem.CLASS_CLOSED, "This class has ended.")
        return normal, meta

    def _take_token(self, code: str, meta: dict[str, str], browser_id: str) -> bool:
        return self.store.take_token(self._key(code, meta, "rate"), browser_id, self.limits.answers_burst,
                                     self.limits.answers_per_second, self._clock(), self._store_ttl)

    def _touch(self, code: str, meta: dict[str, str]) -> None:
        """Activity: the class lives ``ttl_seconds`` from now (written at most once a minute)."""
        now, ttl = self._clock(), self.limits.ttl_seconds
        if _float(meta.get("expires_at")) - now > ttl - min(60.0, ttl / 10):
            return
        until = repr(now + ttl)
        self.store.write(self._meta_key(code), {"expires_at": until}, self._store_ttl)
        self.store.write(self._registry(), {code: until}, self._store_ttl)
        self.store.expire([self._key(code, meta, part) for part in ("secret", "students", "rate")]
                          + [self._answers_key(code, meta)], self._store_ttl)


def _float(text: str | None) -> float:
    try:
        return float(text) if text is not None else -math.inf
    except ValueError:
        return -math.inf


_default_lock = threading.Lock()
_default: LiveClasses | None = None


def live_classes() -> LiveClasses:
    """This process's :class:`LiveClasses`, made once from the environment."""
    global _default
    with _default_lock:
        if _default is None:
            _default = LiveClasses(store_from_env(), ClassLimits.from_env())
        return _default
