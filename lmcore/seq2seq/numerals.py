"""Reading a number in Chinese numerals (the rule-based "translation" task), up to 99,999,999.

Rules: digits with place words 千 百 十 in each four-digit group, 万 after the upper group; one 零
for each run of zeros between non-zero digits (also when the lower group starts with zeros);
no trailing 零; a leading 一十 is read 十 (十二, 十万), elsewhere 一十 stays (一百一十).
"""
from __future__ import annotations

DIGIT_WORDS = "零一二三四五六七八九"
PLACES = ("千", "百", "十", "")
MAX_NUMBER = 99_999_999


def _group(n: int, leading: bool) -> list[str]:
    """Reading of 0 < n < 10000 as a four-digit group (zeros inside -> one 零)."""
    digits = f"{n:04d}"
    out: list[str] = []
    pending_zero = False
    started = False
    for d, place in zip(digits, PLACES):
        if d == "0":
            pending_zero = started
            continue
        if pending_zero:
            out.append("零")
            pending_zero = False
        if not (leading and not started and d == "1" and place == "十"):
            out.append(DIGIT_WORDS[int(d)])
        if place:
            out.append(place)
        started = True
    return out


def chinese_numeral(n: int) -> list[str]:
    """The characters of n read in Chinese, e.g. 305 -> 三 百 零 五, 10010 -> 一 万 零 一 十."""
    if not 0 <= n <= MAX_NUMBER:
        raise ValueError(f"n must be in 0..{MAX_NUMBER}")
    if n == 0:
        return ["零"]
    high, low = divmod(n, 10_000)
    out: list[str] = []
    if high:
        out += _group(high, leading=True) + ["万"]
        if 0 < low < 1000:
            out.append("零")
    if low:
        out += _group(low, leading=not high)
    return out
