"""AppTest helpers for st.fragment: which fragment a widget lives in, and a fragment-only rerun.

AppTest's ``run()`` always reruns the whole script. The browser, after a widget inside a fragment
changes, asks for a rerun of that fragment only (``RerunData.fragment_id_queue``); ``run_fragment``
sends the same request through AppTest's own script runner, and ``sent_messages`` records every
message the app sends, so a test sees exactly what a fragment rerun recomputes and resends.
"""
from __future__ import annotations

import functools
import os
from collections.abc import Iterator
from contextlib import contextmanager
from unittest import mock

import streamlit.testing.v1.local_script_runner as local_runner
from streamlit.runtime.forward_msg_queue import ForwardMsgQueue
from streamlit.runtime.scriptrunner_utils.script_requests import RerunData

from tests.apptest_helpers import known_proto


@contextmanager
def sent_messages() -> Iterator[list]:
    """Every ForwardMsg the app enqueues inside the ``with`` block."""
    sent: list = []
    enqueue = ForwardMsgQueue.enqueue

    def recording(self, msg):
        sent.append(msg)
        return enqueue(self, msg)

    with mock.patch.object(ForwardMsgQueue, "enqueue", recording):
        yield sent


def deltas(messages: list) -> list:
    return [m.delta for m in messages if m.WhichOneof("type") == "delta"]


def delta_paths(messages: list, fragment_id: str | None = None) -> list[tuple[int, ...]]:
    """Where each element the messages draw goes (its block's path, then its index), of one fragment's
    elements only if ``fragment_id`` is given."""
    return [tuple(m.metadata.delta_path) for m in messages if m.WhichOneof("type") == "delta"
            and (fragment_id is None or m.delta.fragment_id == fragment_id)]


def block_of(messages: list, fragment_id: str) -> tuple[int, ...]:
    """The innermost block holding every element ``fragment_id`` drew (a fragment's own and, when it
    reruns, those of the fragments it calls go there)."""
    paths = delta_paths(messages, fragment_id)
    common = tuple(os.path.commonprefix(paths)) if paths else ()
    return common[:-1] if len(paths) == 1 else common


def elements(messages: list, kind: str) -> list:
    """The new elements of one type (e.g. "plotly_chart", "metric") among the messages; the charts of
    ui/plotly_element.py are "plotly_chart", the formulas of ui/formula_element.py "latex"
    (tests/apptest_helpers.py's ``known_proto``)."""
    out = []
    for d in deltas(messages):
        if d.WhichOneof("type") != "new_element":
            continue
        found = d.new_element.WhichOneof("type")
        known = known_proto(d.new_element.bidi_component) if found == "bidi_component" else None
        if found == kind:
            out.append(getattr(d.new_element, kind))
        elif known is not None and known[0] == kind:
            out.append(known[1])
    return out


def fragment_of(messages: list, widget_key: str) -> str:
    """The id of the fragment that drew the widget with this key ('' = the main script)."""
    for d in deltas(messages):
        if d.WhichOneof("type") != "new_element":
            continue
        kind = d.new_element.WhichOneof("type")
        widget_id = getattr(getattr(d.new_element, kind), "id", "") if kind else ""
        if isinstance(widget_id, str) and widget_id.endswith(f"-{widget_key}"):
            return d.fragment_id
    raise KeyError(f"no widget with key {widget_key!r} was drawn")


def run_fragment(at, fragment_id: str) -> list:
    """Rerun only ``fragment_id`` (as the browser does after a widget in it changed); the messages sent."""
    scoped = functools.partial(RerunData, fragment_id_queue=[fragment_id])
    with mock.patch.object(local_runner, "RerunData", scoped), sent_messages() as sent:
        at.run()
    return sent


def rerun_each_section(at, stem: str, sections: dict, set_value) -> dict[str, tuple[str, list, list]]:
    """For each control ``key → (part, value, …)`` of page ``stem``: open its part with a whole
    run, find the fragment that draws the control, ``set_value(at, key, value)`` and rerun that fragment
    alone; checks the fragment run raised nothing and sent nothing outside it, and that every control
    has a fragment of its own. Returns ``key → (fragment id, the whole run's messages, the fragment's)``."""
    out = {}
    for key, (part, value, *_) in sections.items():
        at.query_params["part"] = part  # the address names the open part (ui/sections.py)
        with sent_messages() as whole:
            at.run()  # AppTest keeps only the last run's elements: redraw the whole page first
        fragment = fragment_of(whole, key)
        assert fragment != "", key
        set_value(at, key, value)
        sent = run_fragment(at, fragment)
        assert not at.exception, key
        assert fragment in {d.fragment_id for d in deltas(sent)}, key
        block = block_of(sent, fragment)  # nothing outside the section (a fragment inside it may run too)
        assert block and all(path[:len(block)] == block for path in delta_paths(sent)), key
        out[key] = (fragment, whole, sent)
    assert len({fragment for fragment, _, _ in out.values()}) == len(sections)
    return out


def payload_bytes(messages: list) -> int:
    """Bytes of the element messages (what the browser receives for the page's content)."""
    return sum(m.ByteSize() for m in messages if m.WhichOneof("type") == "delta")


OUTPUT_KINDS = ("plotly_chart", "metric", "markdown", "latex", "text", "caption", "info", "warning", "error",
                "success", "dataframe", "html", "header", "subheader")


def page_output(at) -> list[str]:
    """Everything a page shows except its widgets, as comparable strings (charts by their spec)."""
    out = []
    for kind in OUTPUT_KINDS:
        for el in at.get(kind):
            if kind == "plotly_chart":
                out.append(el.proto.spec)
            elif kind == "dataframe":
                out.append(el.value.to_json())
            elif kind == "html":
                out.append(el.proto.body)
            elif kind == "metric":
                out.append(f"{el.label}={el.value}")
            else:
                out.append(str(el.value))
    return out
