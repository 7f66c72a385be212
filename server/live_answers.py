"""What a browser sends a live class, read and checked (a class code, a browser id, the instructor's
token, a place, an answer, a nickname), and the projector's histogram."""
from __future__ import annotations

import hashlib
import hmac
import math
import re
import unicodedata

from server.live_class_types import Histogram, Problem, Refused

_DROPPED = {"Cc", "Cs", "Co", "Cn"}
_BIDI_CONTROLS = set("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I/L
CODE_LENGTH = 5
PAGE_CHARS = 120
_BROWSER_ID = re.compile(r"[A-Za-z0-9_.:-]{1,100}")


def parse_number(text: str) -> float | None:
    """A finite number from a student's text: ``3.5``, ``-2e-3``, ``.5``, ``1/3``, full-width
    ``３．５`` or ``3。5``; None for anything else (no ``nan``, ``inf``, ``1_000`` or ``25%``)."""
    cleaned = unicodedata.normalize("NFKC", text).replace("\u2212", "-").replace("。", ".")
    cleaned = "".join(cleaned.split())
    top, slash, bottom = cleaned.partition("/")
    if not _NUMBER.fullmatch(top) or (slash and not _NUMBER.fullmatch(bottom)):
        return None
    try:
        value = float(top) / float(bottom) if slash else float(top)
    except (ZeroDivisionError, OverflowError):
        return None
    return value if math.isfinite(value) else None


def clean_nickname(nickname: str) -> str:
    """The nickname as shown: control, unassigned and direction-override characters dropped (the
    joiners of emoji stay), runs of spaces made one, ends trimmed. Markup is left as typed: it is
    shown as text, not interpreted."""
    kept = "".join(ch for ch in nickname if ch.isspace() or (unicodedata.category(ch) not in _DROPPED
                                                              and ch not in _BIDI_CONTROLS))
    return " ".join(kept.split())


def is_correct(kind: str, value: str, answer: str, tolerance: float) -> bool:
    """Whether a stored answer is right."""
    if kind == "choice":
        return value == answer
    mine, right = float(value), float(answer)
    return abs(mine - right) <= tolerance + 1e-9 * max(1.0, abs(right))


def histogram(values: list[float], band: tuple[float, float] | None) -> Histogram:
    """About √n equal bins (at most 12) spanning the answers and the band."""
    if not values:
        return Histogram(edges=[], counts=[], band=band)
    low, high = min(values), max(values)
    if band is not None:
        low, high = min(low, band[0]), max(high, band[1])
    if high == low:
        half = max(0.5, abs(low) * 0.1)
        low, high = low - half, high + half
    bins = max(1, min(12, math.ceil(math.sqrt(len(values)))))
    width = high / bins - low / bins  # not (high - low) / bins: that overflows for ±1e308
    counts = [0] * bins
    for value in values:
        counts[min(bins - 1, max(0, int(value / width - low / width)))] += 1
    return Histogram(edges=[low + i * width for i in range(bins)] + [high], counts=counts, band=band)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def normal_code(code: object) -> str | None:
    if not isinstance(code, str):
        return None
    normal = unicodedata.normalize("NFKC", code).strip().upper()
    if len(normal) != CODE_LENGTH or any(ch not in CODE_ALPHABET for ch in normal):
        return None
    return normal


def valid_browser(browser_id: object) -> bool:
    return isinstance(browser_id, str) and _BROWSER_ID.fullmatch(browser_id) is not None


def token_matches(token: object, stored_hash: str) -> bool:
    if not isinstance(token, str) or not token or len(token) > 200 or not stored_hash:
        return False
    return hmac.compare_digest(hash_token(token), stored_hash)


def check_place(page: object, slide: object) -> Refused | None:
    if not isinstance(page, str) or not 0 < len(page) <= PAGE_CHARS:
        return Refused(Problem.BAD_REQUEST, "The page must be a name of at most 120 characters.")
    if isinstance(slide, bool) or not isinstance(slide, int) or not 0 <= slide < 10_000:
        return Refused(Problem.BAD_REQUEST, "The slide must be a whole number ≥ 0.")
    return None
