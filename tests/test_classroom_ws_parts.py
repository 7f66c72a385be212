"""The websocket student opens other parts of a page (ui/sections.py) as a browser does: a page's bar
of parts is a segmented control, read from the server's deltas, and a click on a part sends its label."""
from __future__ import annotations

import asyncio
import random
import sys

from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from tests.browser_server import ROOT

sys.path.insert(0, str(ROOT / "bench"))
from classroom_common import Recorder  # noqa: E402
from classroom_widgets import random_value  # noqa: E402
from classroom_ws import WsStudent  # noqa: E402

LABELS = ["Next words", "Samples"]


def _bar(widget_id: str, labels: list[str]) -> ForwardMsg:
    msg = ForwardMsg()
    msg.metadata.delta_path.extend((0, 3))
    group = msg.delta.new_element.button_group
    group.id, group.required = widget_id, True
    for label in labels:
        group.options.add().content = label
    return msg


def test_a_pages_bar_of_parts_is_a_control_whose_values_are_its_labels():
    student = WsStudent(0, "http://127.0.0.1:1", Recorder(), 5.0)
    student._on_delta(_bar("$$ID-abc-part_ngram", LABELS), b"")
    kind, bar = student.widgets["$$ID-abc-part_ngram"]
    assert kind == "button_group"
    values = {tuple(random_value(kind, bar, random.Random(seed)).string_array_value.data) for seed in range(20)}
    assert values == {("Next words",), ("Samples",)}


def test_opening_a_part_sends_its_label_and_reruns(monkeypatch):
    student = WsStudent(0, "http://127.0.0.1:1", Recorder(), 5.0)
    student._on_delta(_bar("$$ID-abc-part_ngram", LABELS), b"")
    reruns = []

    async def rerun(fragment: str = "") -> None:
        reruns.append(fragment)

    monkeypatch.setattr(student, "_rerun", rerun)
    assert asyncio.run(student.open_part({"Samples", "样本"}))
    assert list(student.values["$$ID-abc-part_ngram"].string_array_value.data) == ["Samples"] and reruns == [""]
    assert not asyncio.run(student.open_part({"a part of another page"}))
