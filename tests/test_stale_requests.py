"""A request the browser sent before it saw the server's answer must not undo that answer.

The browser sends every widget's value with each request; a status fragment's one-second poll (or a
quick click) sent after an upload but before the new sidebar arrived still carries the old corpus
choice. With the choice stored under the radio's own key, Streamlit took that old value as a move
of the radio and put the English sample back (seen under load: "the sidebar lists the upload, the
Corpus page previews the sample"). Driven over Streamlit's websocket protocol (bench/classroom_ws.py).
"""
from __future__ import annotations

import asyncio
import sys
import threading
import uuid

import pytest
from streamlit.proto.WidgetStates_pb2 import WidgetState

from lmcore.i18n import t
from tests.browser_server import ROOT

sys.path.insert(0, str(ROOT / "bench"))
from classroom_common import Recorder  # noqa: E402
from classroom_widgets import user_key  # noqa: E402
from classroom_ws import WsStudent  # noqa: E402

pytestmark = pytest.mark.browser


async def _upload_with_a_stale_request(url: str) -> tuple[str, str, dict]:
    rec = Recorder()
    student = WsStudent(0, url, rec, settle_timeout=120)
    await student.connect("corpus-stats", "en")
    for choice in ("chinese", "english"):  # the student looks at a sample, then comes back
        radio = next(p for kind, p in student.widgets.values()
                     if kind == "radio" and user_key(p.id).startswith("source"))
        held = WidgetState(id=radio.id)
        held.string_value = choice  # the browser holds this value until the server sends another
        student.values[radio.id] = held
        await student._rerun()
    radio = next(p for kind, p in student.widgets.values() if kind == "radio" and user_key(p.id).startswith("source"))
    held = WidgetState(id=radio.id)
    held.string_value = "english"  # a browser keeps every widget's value, the ones the server set too
    student.values[radio.id] = held
    marker = f"zqx{uuid.uuid4().hex[:10]}"
    await student.upload(f"{marker}.txt", f"The {marker} walked home. The cat sat on the mat.\n".encode() * 100,
                         resend=True)
    await student.quiet()
    preview = await student.preview()
    await student.close()
    return marker, preview, dict(rec.errors)


def _run(coroutine_function, url: str):
    """Run the websocket client on a thread of its own (the event loop stays out of pytest's way)."""
    result = {}
    thread = threading.Thread(target=lambda: result.update(r=asyncio.run(coroutine_function(url))))
    thread.start()
    thread.join(300)
    return result["r"]


def test_a_request_sent_before_the_new_sidebar_arrived_keeps_the_upload(app_server):
    marker, preview, errors = _run(_upload_with_a_stale_request, app_server)
    errors.pop("page_not_found", None)  # a fresh server's first run (app.py closes that pop-up in browsers)
    assert errors == {}
    assert preview.startswith(f"The {marker} walked home"), preview


async def _label_of_the_other_language(url: str) -> tuple[dict, list[str]]:
    rec = Recorder()
    student = WsStudent(0, url, rec, settle_timeout=120)
    await student.connect("corpus-stats", "en")
    radio = next(p for kind, p in student.widgets.values()
                 if kind == "radio" and user_key(p.id).startswith("sentence_mode"))
    held = WidgetState(id=radio.id)
    held.string_value = t("sidebar.sentence_mode.lines", "zh")  # drawn in 中文 before, sent after a switch to English
    student.values[radio.id] = held
    await student._rerun()
    await student._rerun()
    await student.close()
    return dict(rec.errors), rec.error_details


def test_a_radio_label_of_the_language_shown_before_is_not_taken_as_the_setting(app_server):
    errors, details = _run(_label_of_the_other_language, app_server)
    errors.pop("page_not_found", None)
    assert errors == {}, details
