"""Text labels that never pile up: estimate each label's box in pixels and keep only those that fit.

The figure builders know their axis ranges and height; the width is the narrowest plotting area a
page gives the chart at 1280×720 (``plot_width``). A label's width is estimated from its characters
(East Asian wide characters twice as wide as Latin ones), its height from the font size. Labels are
placed greedily in priority order: each takes the first of its candidate positions whose box
overlaps no box already taken, or is hidden (the point keeps its hover text).
"""
from __future__ import annotations

import math
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

LATIN_EM = 0.62
"""Width of an average Latin character in ems (Plotly's default font; a little generous)."""
WIDE_EM = 1.05


def text_width(text: str, font_px: float = 12) -> float:
    """Estimated width in pixels of ``text`` at ``font_px`` (wide CJK characters count double)."""
    ems = sum(WIDE_EM if unicodedata.east_asian_width(ch) in "WF" else LATIN_EM for ch in text)
    return ems * font_px


def has_wide(texts: Sequence[str]) -> bool:
    """True when any label holds East Asian wide characters (which must not be drawn rotated)."""
    return any(unicodedata.east_asian_width(ch) in "WF" for text in texts for ch in text)


def token_ticks(shown: Sequence[str], width: float, max_ticks: int = 60) -> tuple[int, bool]:
    """(step, horizontal) for a category axis of ``shown`` labels across ``width`` pixels.

    Labels are written horizontally when they fit side by side, and always for Chinese (a
    rotated character is read sideways): then every ``step``-th is written, ``step`` large enough
    for the widest label to fit. Long Latin labels are rotated instead (``horizontal`` False).
    """
    n = max(1, len(shown))
    step = max(1, math.ceil(n / max_ticks))
    widest = max((text_width(s) for s in shown), default=0.0) + 6
    horizontal = has_wide(shown) or widest * math.ceil(n / step) <= width
    if horizontal:
        step = max(step, math.ceil(widest * n / width))
    return step, horizontal


def token_axis(tokens: Sequence[str], width: float, labels: Sequence[str] | None = None, first: int = 1,
               slant: int = -45, max_ticks: int = 60) -> dict:
    """An axis of integer positions ``first``, ``first`` + 1, … with the tokens as tick text (repeated
    tokens stay apart): upright where they fit side by side or are Chinese, thinned to fit ``width``
    px, long Latin ones slanted by ``slant`` degrees (:func:`token_ticks`). ``labels``: what is written
    for each token (escaped for Plotly); by default the tokens."""
    raw = [str(tok) for tok in tokens]
    step, horizontal = token_ticks(raw, width, max_ticks)
    shown = raw if labels is None else list(labels)
    kept = range(0, len(raw), step)
    return dict(tickmode="array", tickvals=[first + i for i in kept], ticktext=[shown[i] for i in kept],
                tickangle=0 if horizontal else slant)


@dataclass(frozen=True)
class Box:
    x0: float
    y0: float
    x1: float
    y1: float

    def overlaps(self, other: Box, gap: float = 1.0) -> bool:
        return not (self.x1 + gap <= other.x0 or other.x1 + gap <= self.x0
                    or self.y1 + gap <= other.y0 or other.y1 + gap <= self.y0)


@dataclass(frozen=True)
class Frame:
    """Maps data coordinates to pixels (y downwards) for a plotting area of ``width`` × ``height``."""

    x_range: tuple[float, float]
    y_range: tuple[float, float]
    width: float
    height: float

    def px(self, x: float, y: float) -> tuple[float, float]:
        (x0, x1), (y0, y1) = self.x_range, self.y_range
        return ((x - x0) / (x1 - x0) * self.width, (y1 - y) / (y1 - y0) * self.height)


def label_box(cx: float, cy: float, text: str, position: str, marker_px: float, font_px: float = 12) -> Box:
    """The box of ``text`` drawn at ``position`` ("top center", "middle right"…) of a marker at (cx, cy) px."""
    w, h, r = text_width(text, font_px), font_px * 1.25, marker_px / 2 + 2
    vertical, horizontal = position.split()
    if horizontal == "center":
        x0 = cx - w / 2
    elif horizontal == "right":
        x0 = cx + r
    else:
        x0 = cx - r - w
    if vertical == "top":
        y0 = cy - r - h if horizontal == "center" else cy - h - r / 2
    elif vertical == "bottom":
        y0 = cy + r if horizontal == "center" else cy + r / 2
    else:
        y0 = cy - h / 2
    return Box(x0, y0, x0 + w, y0 + h)


def place_labels(points: Sequence[tuple[float, float]], texts: Sequence[str], candidates: Sequence[Sequence[str]],
                 order: Sequence[int], marker_px: Sequence[float] | float = 8, font_px: float = 12,
                 bounds: tuple[float, float] | None = None, avoid_markers: bool = True) -> list[str | None]:
    """The position chosen for each label (None: hidden), trying ``candidates[i]`` in turn for the
    labels in ``order``; ``points`` in pixels. ``bounds`` = (width, height): a label must lie inside.
    ``avoid_markers``: a label may not cover any marker either (its own is beside it by construction)."""
    sizes = marker_px if isinstance(marker_px, Sequence) else [marker_px] * len(points)
    taken: list[Box] = []
    if avoid_markers:
        taken = [Box(x - s / 2, y - s / 2, x + s / 2, y + s / 2) for (x, y), s in zip(points, sizes)]
    chosen: list[str | None] = [None] * len(points)
    for i in order:
        if not texts[i]:
            continue
        for position in candidates[i]:
            box = label_box(*points[i], texts[i], position, sizes[i], font_px)
            if bounds and (box.x0 < -2 or box.y0 < -2 or box.x1 > bounds[0] + 2 or box.y1 > bounds[1] + 2):
                continue
            if not any(box.overlaps(b) for b in taken):
                taken.append(box)
                chosen[i] = position
                break
    return chosen
