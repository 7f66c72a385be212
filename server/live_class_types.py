"""The words of a live class (server/live_class.py): why an action was refused, a view's status, the
instructor's actions, the student's and the projector's views, and the class's caps. Plain data: a
view serialises to JSON for the page."""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Literal, NamedTuple

from server.env import env_number


class Problem(StrEnum):
    """Why an action was refused (the UI shows a message for each)."""

    NO_SUCH_CLASS = "no_such_class"  # a wrong or expired code
    CLASS_CLOSED = "class_closed"
    PAUSED = "paused"  # the store cannot be reached just now
    NOT_INSTRUCTOR = "not_instructor"  # a wrong or missing instructor token
    REPLAYED = "replayed"  # an instructor action whose sequence number was used already
    CLASS_FULL = "class_full"
    SERVER_FULL = "server_full"  # too many classes at once
    NOT_JOINED = "not_joined"
    NO_OPEN_QUESTION = "no_open_question"  # no question, another one, or answers closed by the reveal
    BAD_ANSWER = "bad_answer"
    TOO_LONG = "too_long"
    TOO_FAST = "too_fast"
    BAD_REQUEST = "bad_request"


class Status(StrEnum):
    """What a view shows."""

    LIVE = "live"
    PAUSED = "paused"
    NO_SUCH_CLASS = "no_such_class"
    CLOSED = "closed"
    NOT_JOINED = "not_joined"
    NOT_INSTRUCTOR = "not_instructor"


STATUS_OF = {Problem.NO_SUCH_CLASS: Status.NO_SUCH_CLASS, Problem.CLASS_CLOSED: Status.CLOSED,
              Problem.PAUSED: Status.PAUSED, Problem.NOT_INSTRUCTOR: Status.NOT_INSTRUCTOR,
              Problem.NOT_JOINED: Status.NOT_JOINED}


@dataclass(frozen=True)
class Refused:
    """An action that was not done: ``problem`` for the UI, ``detail`` in plain English."""

    problem: Problem
    detail: str
    ok: bool = False


@dataclass(frozen=True)
class Accepted:
    """An action that was done; ``value`` is the answer as stored (a number normalised)."""

    value: str = ""
    ok: bool = True


class Started(NamedTuple):
    """A new class: the code for the join link, and the instructor's secret token."""

    code: str
    token: str

    @property
    def ok(self) -> bool:
        return True


# Instructor actions.
@dataclass(frozen=True)
class Advance:
    """Everyone following moves to this page and slide."""

    page: str
    slide: int = 0


@dataclass(frozen=True)
class OpenQuestion:
    """Ask a question: a number (right within ``tolerance``) or one of ``choices``. ``answer``
    stays on the server until :class:`Reveal`."""

    question_id: str
    kind: Literal["number", "choice"]
    answer: str | float
    tolerance: float = 0.0
    choices: tuple[str, ...] = ()


@dataclass(frozen=True)
class Reveal:
    """Show the answer and everyone's result; answers close."""


@dataclass(frozen=True)
class Reset:
    """Ask the current question again: its answers are cleared and answers open again."""


@dataclass(frozen=True)
class Close:
    """End the class."""


Action = Advance | OpenQuestion | Reveal | Reset | Close


@dataclass(frozen=True)
class QuestionView:
    """The current question as everyone may see it (never the answer)."""

    question_id: str
    kind: str
    choices: tuple[str, ...]
    tolerance: float | None  # number questions: how close to the answer counts as right
    revealed: bool


@dataclass(frozen=True)
class StudentView:
    """What one student's page shows. ``stamp`` changes whenever the class does (for polling)."""

    status: Status
    code: str
    stamp: str | None = None
    page: str | None = None
    slide: int | None = None
    question: QuestionView | None = None
    own_answer: str | None = None
    answer: str | None = None  # after the reveal only
    own_correct: bool | None = None  # after the reveal only
    nickname: str | None = None  # plain text

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False)


@dataclass(frozen=True)
class Histogram:
    """Numeric answers in equal bins: ``counts[i]`` between ``edges[i]`` and ``edges[i + 1]``;
    ``band`` is the range counted right (after the reveal only)."""

    edges: list[float]
    counts: list[int]
    band: tuple[float, float] | None = None


@dataclass(frozen=True)
class ProjectorView:
    """What the projector shows. ``seq`` is the last instructor sequence number accepted."""

    status: Status
    code: str
    stamp: str | None = None
    seq: int | None = None
    page: str | None = None
    slide: int | None = None
    joined: int = 0
    nicknames: list[str] = field(default_factory=list)  # plain text
    question: QuestionView | None = None
    answered: int = 0
    histogram: Histogram | None = None
    choice_counts: dict[str, int] | None = None
    answer: str | None = None  # after the reveal only
    share_correct: float | None = None  # after the reveal only

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False)


@dataclass(frozen=True)
class ClassLimits:
    """Caps and times (the defaults suit one class of a few hundred students per server)."""

    ttl_seconds: float = 4 * 3600.0
    students_per_class: int = 300
    classes_per_server: int = 50
    answer_chars: int = 40
    nickname_chars: int = 24
    answers_burst: float = 5.0  # answers a browser may send at once ...
    answers_per_second: float = 0.5  # ... and then one every two seconds

    @classmethod
    def from_env(cls) -> ClassLimits:
        """``LMLAB_CLASS_HOURS``, ``LMLAB_CLASS_STUDENTS``, ``LMLAB_CLASSES``; the rest default."""
        return cls(ttl_seconds=3600.0 * env_number("LMLAB_CLASS_HOURS", 4.0, minimum=0.1),
                   students_per_class=int(env_number("LMLAB_CLASS_STUDENTS", 300, minimum=1)),
                   classes_per_server=int(env_number("LMLAB_CLASSES", 50, minimum=1)))


PAUSED = Refused(Problem.PAUSED, "The class is paused: its shared state cannot be reached just now. Try again shortly.")
NO_CLASS = Refused(Problem.NO_SUCH_CLASS, "There is no class with this code: it may be mistyped, or the class has ended.")
