"""A live class's views built from its stored fields: the projector's answers distribution, the
current question as a student may see it, and the stamp a poll compares."""
from __future__ import annotations

import json
from dataclasses import replace

from server.live_answers import histogram, is_correct
from server.live_class_types import ProjectorView, QuestionView


def with_distribution(view: ProjectorView, meta: dict[str, str], answers: list[str]) -> ProjectorView:
    """The view with the answers' distribution; the answer and the share correct after the reveal."""
    revealed = meta["phase"] == "revealed"
    right = meta["revealed"] if revealed else None
    tolerance = float(meta["q_tolerance"])
    share = (sum(is_correct(meta["q_kind"], a, right, tolerance) for a in answers) / len(answers)
             if right is not None and answers else None)
    if meta["q_kind"] == "choice":
        counts = {choice: 0 for choice in json.loads(meta["q_choices"])}
        for value in answers:
            if value in counts:
                counts[value] += 1
        return replace(view, choice_counts=counts, answer=right, share_correct=share)
    band = (float(right) - tolerance, float(right) + tolerance) if right is not None else None
    return replace(view, histogram=histogram([float(a) for a in answers], band), answer=right, share_correct=share)


def question_view(meta: dict[str, str]) -> QuestionView | None:
    if meta.get("phase") not in ("open", "revealed"):
        return None
    is_number = meta["q_kind"] == "number"
    return QuestionView(question_id=meta["q_id"], kind=meta["q_kind"], choices=tuple(json.loads(meta["q_choices"])),
                        tolerance=float(meta["q_tolerance"]) if is_number else None,
                        revealed=meta["phase"] == "revealed")


def stamp(meta: dict[str, str]) -> str:
    return f"{meta['cid']}.{meta.get('version', '0')}"
