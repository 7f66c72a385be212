"""The websocket student opens other parts of a page (ui/sections.py) as a browser does: a page's
stateful tabs are read from the server's add_block deltas, and moving them sends a tab's label."""
from __future__ import annotations

import random
import sys

from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from tests.browser_server import ROOT

sys.path.insert(0, str(ROOT / "bench"))
from classroom_common import Recorder  # noqa: E402
from classroom_widgets import random_value  # noqa: E402
from classroom_ws import WsStudent  # noqa: E402


def _block(path: tuple, **fields) -> ForwardMsg:
    msg = ForwardMsg()
    msg.metadata.delta_path.extend(path)
    for name, value in fields.items():
        if name == "tab_container":
            msg.delta.add_block.tab_container.id = value
        else:
            msg.delta.add_block.tab.label = value
    return msg


def test_a_pages_tabs_become_a_control_whose_values_are_its_labels():
    student = WsStudent(0, "http://127.0.0.1:1", Recorder(), 5.0)
    student._on_delta(_block((0, 3), tab_container="$$ID-abc-part_ngram"), b"")
    for i, label in enumerate(["Next words", "Samples"]):
        student._on_delta(_block((0, 3, i), tab=label), b"")
    student._on_delta(_block((0, 4, 0), tab="a tab of a stateless st.tabs elsewhere"), b"")
    kind, tabs = student.widgets["$$ID-abc-part_ngram"]
    assert kind == "tabs" and tabs.labels == ["Next words", "Samples"]
    values = {random_value(kind, tabs, random.Random(seed)).string_value for seed in range(20)}
    assert values == {"Next words", "Samples"}


def test_tabs_without_state_are_not_a_control():
    student = WsStudent(0, "http://127.0.0.1:1", Recorder(), 5.0)
    student._on_delta(_block((0, 3), tab_container=""), b"")  # st.tabs(on_change="ignore"): no id
    assert student.widgets == {}
