"""What a session's run-lifecycle messages and drawn elements mean (Streamlit 1.67 protocol)."""
from __future__ import annotations

from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

FINISHED = ForwardMsg.FINISHED_SUCCESSFULLY
FRAGMENT_DONE = ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY
COMPILE_ERROR = ForwardMsg.FINISHED_WITH_COMPILE_ERROR
EARLY_FOR_RERUN = ForwardMsg.FINISHED_EARLY_FOR_RERUN


def fragment_run_delivered(run_log: list[tuple[str, tuple, int | None]], fragment: str) -> bool:
    """Whether a run of ``fragment`` in ``run_log`` finished and its output reached the browser.

    A finished fragment run says FINISHED_FRAGMENT_RUN_SUCCESSFULLY — unless the next run (say, a
    status fragment's one-second poll) started before the server flushed its messages: Streamlit
    1.67's ``ForwardMsgQueue.clear`` then keeps the finished run's deltas and rewrites its status
    to FINISHED_EARLY_FOR_RERUN. A run really interrupted by ``st.rerun()`` in this app is
    followed by a full run, which the caller waits for; so "early" followed by another fragment
    run's start is a delivered run."""
    for i, (event, ids, status) in enumerate(run_log):
        if event != "end" or fragment not in ids:
            continue
        if status == FRAGMENT_DONE:
            return True
        if status == EARLY_FOR_RERUN and any(e == "start" and later for e, later, _ in run_log[i + 1:]):
            return True
    return False


def text_elements(page: dict[tuple, bytes]) -> list[str]:
    """The bodies of the st.text elements among a page's deltas, in page order."""
    out = []
    for path in sorted(page):
        msg = ForwardMsg()
        msg.ParseFromString(page[path])
        if msg.WhichOneof("type") == "delta" and msg.delta.new_element.WhichOneof("type") == "text":
            out.append(msg.delta.new_element.text.body)
    return out


class PageShown:
    """What a websocket student's current page shows, read from the deltas it was drawn from (the
    student keeps ``page``, ``alerts``, ``progress`` and ``auto_reruns`` up to date)."""

    page: dict
    alerts: dict
    progress: dict
    auto_reruns: dict

    async def text(self) -> bytes:
        """Every byte the current page was drawn from (text, tables, charts)."""
        return b"".join(self.page.values())

    async def shows_in_text_element(self, marker: str) -> bool:
        """Whether ``marker`` is in an st.text element (the Corpus page's preview of the corpus)."""
        return any(marker in body for body in text_elements(self.page))

    async def preview(self) -> str:
        """The start of the first st.text element (what the Corpus page previews), for error details."""
        texts = text_elements(self.page)
        return texts[0][:60] if texts else "(no text element)"

    async def error_messages(self) -> list[str]:
        """The st.error boxes on the page (an upload the app refuses explains itself in one)."""
        return list(self.alerts.values())

    def training_active(self) -> bool:
        """A training still shows progress: a bar below 100 % or a fragment that polls for it."""
        return bool(self.auto_reruns) or any(v < 100 for v in self.progress.values())
