"""Probe for server/streamlit_runs.py: does a full run's end reach the browser when a fragment's rerun
request is handled just after the run ended?

A real ``AppSession`` with real script runners runs a one-fragment script. The probe holds the
server's event loop (as a busy server does) from asking for a full run until that run's runner has
queued its events and stopped taking requests, then, still holding it, hands the session a fragment
rerun request (as a ``run_every`` timer sends one). It then lets the loop go, waits for both runs,
and prints the browser's messages, one per line: ``start app``, ``draw <text>``, ``end app:0``,
``start fragment``, ``end fragment:3`` (``script_finished`` statuses as ForwardMsg numbers them).

    python tests/run_end_probe.py SCRIPT_DIR [--fixed]    # --fixed: install the work-around first
"""
from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

SCRIPT = """import streamlit as st

@st.fragment
def part():
    st.write("in the fragment")

part()
st.write("outside it")
"""


def describe(msg) -> str | None:
    kind = msg.WhichOneof("type")
    ids = ",".join(msg.metadata.run.fragment_ids) or "app"
    if kind == "new_session":
        return f"start {ids}"
    if kind == "script_finished":
        return f"end {ids}:{msg.script_finished}"
    if kind == "delta" and msg.delta.new_element.WhichOneof("type") == "markdown":
        return f"draw {msg.delta.new_element.markdown.body}"
    return None


class _NoOps:
    def __getattr__(self, name: str):
        return lambda *args, **kwargs: None


class _RuntimeStandIn:
    media_file_mgr = dataframe_source_mgr = _NoOps()


async def probe(script: Path) -> list[str]:
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.proto.ClientState_pb2 import ClientState
    from streamlit.runtime.app_session import AppSession
    from streamlit.runtime.memory_uploaded_file_manager import MemoryUploadedFileManager
    from streamlit.runtime.script_data import ScriptData
    from streamlit.runtime.scriptrunner.script_cache import ScriptCache
    from streamlit.runtime.runtime import Runtime
    from streamlit.runtime.scriptrunner_utils.script_requests import ScriptRequestType

    Runtime._instance = _RuntimeStandIn()  # the runners only tell its file managers a run ended
    session = AppSession(ScriptData(str(script)), MemoryUploadedFileManager("/upload"), ScriptCache(),
                         message_enqueued_callback=None, user_info={"email": "probe@example.com"})
    seen: list[str] = []

    def take() -> None:
        seen.extend(d for d in map(describe, session.flush_browser_queue()) if d)

    session.request_rerun(ClientState())
    runner = session._scriptrunner
    deadline = time.monotonic() + 60
    while runner._requests._state != ScriptRequestType.STOP:  # the loop is held: events queue up
        if time.monotonic() > deadline:
            raise SystemExit("the full run did not end within 60 s")
        time.sleep(0.005)
    (fragment_id,) = session._fragment_storage._fragments
    msg = BackMsg()
    msg.rerun_script.fragment_id, msg.rerun_script.is_auto_rerun = fragment_id, True
    session.handle_backmsg(msg)
    deadline = time.monotonic() + 60
    while not any(s.startswith("end ") and s != "end app:0" for s in seen):  # the fragment's run's end
        if time.monotonic() > deadline:
            break
        await asyncio.sleep(0.01)
        take()
    await asyncio.sleep(0.2)
    take()
    session.shutdown()
    return [s.replace(fragment_id, "fragment") for s in seen]


def main() -> None:
    folder = Path(sys.argv[1])
    if "--fixed" in sys.argv:
        from server.streamlit_runs import keep_finish_of_replaced_runner
        keep_finish_of_replaced_runner()
    script = folder / "probe_app.py"
    script.write_text(SCRIPT)
    print("\n".join(asyncio.run(probe(script))))


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    main()
