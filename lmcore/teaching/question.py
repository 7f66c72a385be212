"""A predict-then-reveal question: prompt, data table, answer, tolerance, and what explains it.

Everything a student sees before the reveal is in ``prompt``, ``choices`` and ``table``; the
answer (``answer``, ``reveal``, ``explain_data``) is only read once the student has answered.
Texts are catalogue keys with fields (:class:`Text`), so one question renders in English and 中文.
"""
from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import dataclass, field
from typing import Any
from collections.abc import Mapping, Sequence

from lmcore.i18n import t

NUMERIC, CHOICE = "numeric", "choice"
ABSOLUTE, RELATIVE, FACTOR = "abs", "rel", "factor"


@dataclass(frozen=True)
class Text:
    """A catalogue string ``key`` with format ``fields``; a field that is itself a Text is translated too."""

    key: str
    fields: tuple[tuple[str, Any], ...] = ()

    def render(self, lang: str) -> str:
        values = {k: v.render(lang) if isinstance(v, Text) else v for k, v in self.fields}
        return t(self.key, lang, **values)


def text(key: str, **fields: Any) -> Text:
    """``Text(key, fields)`` with the fields in a stable order."""
    return Text(key, tuple(sorted(fields.items())))


def literal(value: str) -> Text:
    """A text shown as it is (a token sequence, a number)."""
    return text("teaching.literal", text=value)


@dataclass(frozen=True)
class Table:
    """The numbers a question is about: column headers (Texts) and rows of plain values."""

    header: tuple[Text, ...]
    rows: tuple[tuple[Any, ...], ...]

    def render(self, lang: str) -> tuple[list[str], list[list[str]]]:
        return [h.render(lang) for h in self.header], [[fmt(v) for v in row] for row in self.rows]


@dataclass(frozen=True)
class Tolerance:
    """How close a numeric response must be: |x − a| ≤ value (abs), ≤ value·|a| (rel), or
    max(x/a, a/x) ≤ value (factor, for guesses such as a perplexity)."""

    kind: str = RELATIVE
    value: float = 0.02

    def accepts(self, response: float, answer: float) -> bool:
        if not (math.isfinite(response) and math.isfinite(answer)):
            return False
        if self.kind == ABSOLUTE:
            return abs(response - answer) <= self.value
        if self.kind == RELATIVE:
            return abs(response - answer) <= self.value * abs(answer) + 1e-12
        if response <= 0 or answer <= 0:
            return False
        return max(response / answer, answer / response) <= self.value

    def describe(self, lang: str) -> str:
        key = {ABSOLUTE: "teaching.tol.abs", RELATIVE: "teaching.tol.rel", FACTOR: "teaching.tol.factor"}[self.kind]
        value = f"{self.value:.0%}" if self.kind == RELATIVE else fmt(self.value)
        return t(key, lang, value=value)


@dataclass(frozen=True)
class Question:
    """One question. ``kind`` is "numeric" (``answer`` a number) or "choice" (``answer`` the index
    of the right entry of ``choices``). ``explain`` names the figure that explains the answer
    (built by :func:`lmcore.teaching.explain.explain_figure` from ``explain_data``)."""

    qid: str
    topic: str
    prompt: Text
    kind: str
    answer: float
    reveal: Text
    explain: str
    choices: tuple[Text, ...] = ()
    tolerance: Tolerance = Tolerance()
    table: Table | None = None
    explain_data: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def uid(self) -> str:
        """A short id that changes whenever the question's content changes."""
        payload = json.dumps([self.qid, self.prompt.key, [list(f) for f in self.prompt.fields],
                              self.table.rows if self.table else None], default=str, ensure_ascii=False)
        return hashlib.sha1(payload.encode("utf-8")).hexdigest()[:10]

    def check(self, response: float | int | None) -> bool:
        """Whether a response (a number, or a choice index) is right."""
        if response is None:
            return False
        if self.kind == CHOICE:
            return int(response) == int(self.answer)
        return self.tolerance.accepts(float(response), float(self.answer))

    def answer_text(self, lang: str) -> str:
        """The answer alone: the number (4 significant digits) or the right choice."""
        if self.kind == CHOICE:
            return self.choices[int(self.answer)].render(lang)
        return fmt(self.answer)


def fmt(value: Any) -> str:
    """A number as printed in tables and answers (4 significant digits, plain ints as ints)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, int):
        return str(value)
    if value == 0:
        return "0"
    if not math.isfinite(value):
        return "∞" if value > 0 else ("−∞" if value < 0 else "NaN")
    if abs(value) >= 1e5 or abs(value) < 1e-4:
        return f"{value:.3e}"
    return f"{value:.4g}"


_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")


def parse_number(raw: str) -> float | None:
    """A typed number: "0.25", "2.5e-3", "1/8", "12,5" (decimal comma), "10^-3", "25%"; None if not one."""
    s = raw.strip().replace(" ", "").replace("−", "-").replace("×10^", "e").replace("x10^", "e")
    if not s:
        return None
    percent = s.endswith("%")
    s = s.rstrip("%")
    if s.count(",") == 1 and "." not in s:
        s = s.replace(",", ".")
    if s.startswith("10^"):
        s = "1e" + s[3:]
    if "/" in s:
        num, _, den = s.partition("/")
        a, b = parse_number(num), parse_number(den)
        return a / b if a is not None and b not in (None, 0) else None
    if not _NUMBER.match(s):
        return None
    value = float(s)
    return value / 100 if percent else value


def shuffled(rng, items: Sequence[Any]) -> list[Any]:
    """``items`` in an order drawn from ``rng`` (a numpy Generator)."""
    order = rng.permutation(len(items))
    return [items[i] for i in order]
