"""One student as Streamlit's own browser frontend talks to the server, without a browser.

Protocol (Streamlit 1.67, read from its server source and its compiled frontend):
- GET / (a load balancer sets its affinity cookie here), GET /_stcore/health (sets the XSRF cookie
  ``_streamlit_xsrf``); then a websocket to /_stcore/stream with subprotocols
  ["streamlit", <xsrf cookie value>] and the cookies.
- Every run is asked for with BackMsg.rerun_script (a ClientState): query string, the states of all
  widgets on the page, the page (page_name = URL path for the first run, page_script_hash after),
  fragment_id for a fragment's auto-rerun, the hashes of cached messages, context info.
- The server answers with ForwardMsgs: new_session (run start, its RunIdentity in metadata.run,
  fragment_ids set for a fragment run), deltas (metadata.delta_path), page_info_changed (query
  string), navigation (the pages and their script hashes), auto_rerun/stop_auto_rerun (fragments
  the frontend must rerun every N s), script_finished. Messages ≥ 10 kB are sent once and then as
  ``ref_hash`` references to the copy the client said it has (ClientState.cached_message_hashes).
- Upload: BackMsg.file_urls_request → ForwardMsg.file_urls_response (file_id, upload_url); PUT the
  file as multipart form data (field and file name = file name) with header X-Xsrftoken = cookie;
  then a rerun with the uploader's widget state FileUploaderState{uploaded_file_info}.

A page is settled when the full run started after the request has sent script_finished
(FINISHED_SUCCESSFULLY): the protocol equivalent of the browser's notRunning without skeletons.
"""
from __future__ import annotations

import asyncio
import random
import time
import uuid
from urllib.parse import urlsplit

import requests
import websockets
from streamlit.proto.Alert_pb2 import Alert
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.Common_pb2 import FileURLs, UploadedFileInfo
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState

from classroom_common import NOT_MOVED, REPLICA_COOKIE, XSRF_COOKIE, Recorder, SettleTimeout
from classroom_runs import COMPILE_ERROR, FINISHED, PageShown, fragment_run_delivered
from classroom_widgets import chosen, random_value, user_key

WIDGETS = {"button", "button_group", "checkbox", "file_uploader", "number_input", "radio", "selectbox", "slider",
           "text_input"}

class WsStudent(PageShown):
    """A Streamlit session driven over the websocket protocol."""

    def __init__(self, index: int, base_url: str, recorder: Recorder, settle_timeout: float) -> None:
        self.index, self.base, self.rec, self.timeout = index, base_url.rstrip("/"), recorder, settle_timeout
        self.http = requests.Session()
        self.ws = None
        self.session_id = ""
        self.closing = False
        self.page: dict[tuple, bytes] = {}  # delta path -> serialized delta of the current page
        self.widgets: dict[str, tuple[str, object]] = {}  # widget id -> (element type, proto)
        self.progress: dict[tuple, int] = {}
        self.exceptions = 0  # exception boxes on the current page
        self.alerts: dict[tuple, str] = {}  # st.error messages on the current page
        self.fragment_of: dict[str, str] = {}  # widget id -> the fragment it is drawn in ("" if none)
        self.run_fragments: tuple = ()  # fragment ids of the run in progress (empty: a full run)
        # ("start", fragment ids, None) / ("end", fragment ids, status) of every run, in order
        self.run_log: list[tuple[str, tuple, int | None]] = []
        self.runs_seen: list[str] = []  # requests and run starts/ends since the last request: a timeout's detail
        self.values: dict[str, WidgetState] = {}  # what the frontend's WidgetStateManager holds
        self.cache: dict[str, bytes] = {}
        self.pages: dict[str, str] = {}  # url path ("" for the default page) -> page script hash
        self.page_hash = ""
        self.query = ""
        self.auto_reruns: dict[str, asyncio.Task] = {}
        self.runs = self.finished = 0  # full runs started / the last one that finished
        self.changed = asyncio.Event()
        self.file_urls: dict[str, asyncio.Future] = {}
        self.reader: asyncio.Task | None = None

    # ------------------------------------------------------------------ connection
    async def connect(self, url_path: str, lang: str, query: str = "") -> float:
        """Open the app at ``/url_path?lang=...`` (then ``&query``) like a browser tab; returns the settle time."""
        start = time.monotonic()
        for path in ("/", "/_stcore/health"):
            response = await asyncio.to_thread(self.http.get, self.base + path, timeout=60)
            self._check_http(response, "GET " + path)
        if replica := self.http.cookies.get(REPLICA_COOKIE):
            self.rec.replicas[self.index] = replica
        parts = urlsplit(self.base)
        ws_url = ("wss" if parts.scheme == "https" else "ws") + f"://{parts.netloc}{parts.path}/_stcore/stream"
        cookies = "; ".join(f"{k}={v}" for k, v in self.http.cookies.items())
        self.ws = await websockets.connect(
            ws_url, subprotocols=["streamlit", self.http.cookies.get(XSRF_COOKIE, "PLACEHOLDER_AUTH_TOKEN")],
            additional_headers={"Cookie": cookies, "Origin": f"{parts.scheme}://{parts.netloc}"},
            max_size=None, open_timeout=60, ping_interval=None)
        self.reader = asyncio.create_task(self._read())
        await self._rerun(page_name=url_path, query=f"lang={lang}" + (f"&{query}" if query else ""))
        return time.monotonic() - start

    async def close(self) -> None:
        self.closing = True
        self._stop_auto_reruns()
        if self.ws is not None:
            await self.ws.close()
        if self.reader is not None:
            await asyncio.gather(self.reader, return_exceptions=True)
        self.http.close()

    def _check_http(self, response, what: str) -> None:
        if response.status_code >= 500 or (response.status_code >= 400 and "upload" in what):
            self.rec.error(self.index, "http", f"{what}: {response.status_code} {response.text[:200]}")

    # ------------------------------------------------------------------ receiving
    async def _read(self) -> None:
        try:
            async for raw in self.ws:
                self._handle(raw)
        except websockets.ConnectionClosed:
            pass
        finally:
            if not self.closing:
                code = self.ws.close_code
                self.rec.error(self.index, "disconnect", f"websocket closed by the server (code {code})")
            self.closing = True
            self.changed.set()

    def _handle(self, raw: bytes) -> None:
        msg = ForwardMsg()
        msg.ParseFromString(raw)
        kind = msg.WhichOneof("type")
        if kind in ("new_session", "script_finished"):
            ids = ",".join(f[:6] for f in msg.metadata.run.fragment_ids) or "app"
            self.runs_seen.append(f"start {ids}" if kind == "new_session" else f"end {ids}:{msg.script_finished}")
        if kind == "ref_hash":
            if msg.ref_hash not in self.cache:
                self.rec.error(self.index, "protocol", f"reference to an unknown message {msg.ref_hash}")
                return
            metadata = msg.metadata
            raw, msg = self.cache[msg.ref_hash], ForwardMsg()
            msg.ParseFromString(raw)
            msg.metadata.CopyFrom(metadata)
            kind = msg.WhichOneof("type")
        elif msg.metadata.cacheable and msg.hash:
            self.cache[msg.hash] = raw
        if kind == "new_session":
            self._on_run_start(msg)
        elif kind == "delta":
            self._on_delta(msg, raw)
        elif kind == "script_finished":
            self.run_log.append(("end", self.run_fragments, msg.script_finished))
            if msg.script_finished in (FINISHED, COMPILE_ERROR) and not msg.metadata.run.fragment_ids:
                self.finished = self.runs
                self.values = {k: v for k, v in self.values.items() if k in self.widgets}
                if not self.exceptions and b"Traceback" in b"".join(self.page.values()):
                    self.rec.error(self.index, "traceback", "the page shows the text 'Traceback'")
        elif kind == "page_info_changed":
            self.query = msg.page_info_changed.query_string
        elif kind == "navigation":
            self.pages = {p.url_pathname: p.page_script_hash for p in msg.navigation.app_pages}
            self.page_hash = msg.navigation.page_script_hash  # the page st.navigation runs
        elif kind == "file_urls_response":
            future = self.file_urls.pop(msg.file_urls_response.response_id, None)
            if future is not None and not future.done():
                future.set_result(msg.file_urls_response)
        elif kind == "auto_rerun":
            fid, interval = msg.auto_rerun.fragment_id, msg.auto_rerun.interval
            if fid and fid not in self.auto_reruns:
                self.auto_reruns[fid] = asyncio.create_task(self._auto_rerun(fid, interval))
        elif kind == "stop_auto_rerun":
            for fid in msg.stop_auto_rerun.fragment_ids:
                if task := self.auto_reruns.pop(fid, None):
                    task.cancel()
        elif kind == "session_event" and msg.session_event.HasField("script_compilation_exception"):
            self.rec.error(self.index, "exception", msg.session_event.script_compilation_exception.message)
        elif kind == "page_not_found":
            self.rec.error(self.index, "page_not_found", msg.page_not_found.page_name)
        self.changed.set()

    def _on_run_start(self, msg: ForwardMsg) -> None:
        if msg.new_session.HasField("initialize"):
            self.session_id = msg.new_session.initialize.session_id
        self.page_hash = msg.new_session.page_script_hash
        self.run_fragments = tuple(msg.metadata.run.fragment_ids)  # runs of one session never overlap
        self.run_log.append(("start", self.run_fragments, None))
        if not msg.metadata.run.fragment_ids:  # a full run: the page is drawn anew
            self.runs += 1
            self.page, self.widgets, self.progress, self.exceptions, self.alerts = {}, {}, {}, 0, {}
            self._stop_auto_reruns()  # the frontend's handleNewSession clears them on a full run

    def _on_delta(self, msg: ForwardMsg, raw: bytes) -> None:
        path = tuple(msg.metadata.delta_path)
        self.page[path] = raw
        if msg.delta.WhichOneof("type") != "new_element":
            return
        element = msg.delta.new_element
        kind = element.WhichOneof("type")
        if kind == "exception":
            self.exceptions += 1
            self.rec.error(self.index, "exception", f"{element.exception.type}: {element.exception.message}")
        elif kind == "progress":
            self.progress[path] = element.progress.value
        elif kind == "alert" and element.alert.format == Alert.ERROR:
            self.alerts[path] = element.alert.body
        elif kind in WIDGETS:
            proto = getattr(element, kind)
            self.widgets[proto.id] = (kind, proto)
            self.fragment_of[proto.id] = msg.delta.fragment_id
            if getattr(proto, "set_value", False):  # the server set it: the frontend takes it over
                self.values.pop(proto.id, None)

    # ------------------------------------------------------------------ sending
    def _client_state(self, query: str | None, page_name: str, page_hash: str | None, extra=()):
        msg = BackMsg()
        state = msg.rerun_script
        state.query_string = self.query if query is None else query
        state.page_script_hash = self.page_hash if page_hash is None else page_hash
        state.page_name = page_name
        state.widget_states.widgets.extend(list(self.values.values()) + list(extra))
        state.cached_message_hashes.extend(self.cache)
        state.context_info.timezone, state.context_info.timezone_offset = "UTC", 0
        state.context_info.locale, state.context_info.url = "en-US", self.base + "/"
        state.context_info.is_embedded, state.context_info.color_scheme = False, "light"
        return msg

    async def _send(self, msg: BackMsg) -> None:
        if self.closing:
            raise ConnectionError("websocket closed")
        try:
            await self.ws.send(msg.SerializeToString())
        except websockets.ConnectionClosed as error:
            raise ConnectionError(f"websocket closed: {error}") from error

    async def _rerun(self, query=None, page_name="", page_hash=None, extra=(), timeout=None, fragment="") -> None:
        """Ask for a full run (or a run of one fragment, as the frontend does for a widget drawn in a
        fragment) and wait until it has finished: the fragment's run, or a full run started since."""
        before, logged, timeout = self.runs, len(self.run_log), timeout or self.timeout
        msg = self._client_state(query, page_name, page_hash, extra)
        msg.rerun_script.fragment_id = fragment
        self.runs_seen = [f"ask {fragment[:6] or 'app'}"]
        await self._send(msg)
        deadline = time.monotonic() + timeout

        def done() -> bool:
            if self.runs > before and self.finished == self.runs:
                return True
            return bool(fragment) and fragment_run_delivered(self.run_log[logged:], fragment)
        while not done():
            if self.closing:
                raise ConnectionError("websocket closed")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise SettleTimeout(f"no finished run within {timeout:.0f} s (then: {'; '.join(self.runs_seen[:12])})")
            self.changed.clear()
            try:
                await asyncio.wait_for(self.changed.wait(), remaining)
            except TimeoutError:
                pass

    def _stop_auto_reruns(self) -> None:
        for task in self.auto_reruns.values():
            task.cancel()
        self.auto_reruns.clear()

    async def _auto_rerun(self, fragment_id: str, interval: float) -> None:
        while not self.closing:
            await asyncio.sleep(interval)
            msg = self._client_state(None, "", None)
            msg.rerun_script.fragment_id, msg.rerun_script.is_auto_rerun = fragment_id, True
            self.runs_seen.append(f"auto {fragment_id[:6]}")
            await self._send(msg)

    # ------------------------------------------------------------------ a student's actions
    async def navigate(self, url_path: str) -> float:
        start = time.monotonic()
        self._stop_auto_reruns()  # as the frontend's onPageChange
        await self._rerun(query="", page_hash=self.pages[url_path])
        if self.page_hash != self.pages.get(url_path):
            self.rec.error(self.index, "client", f"asked for page {url_path!r}, the server ran another")
        return time.monotonic() - start

    async def move_control(self, rng: random.Random) -> float | None:
        """Give one random keyed widget of the page a new value; None when there is none to move."""
        candidates = [(k, p) for k, p in self.widgets.values()
                      if k not in ("button", "file_uploader", "text_input") and not p.disabled and not p.form_id
                      and not user_key(p.id).startswith(NOT_MOVED) and user_key(p.id) != "None"]
        rng.shuffle(candidates)  # (a widget in a form starts no run: it waits for the form's submit)
        for kind, proto in candidates:
            if (state := random_value(kind, proto, rng)) is not None:
                start = time.monotonic()
                self.values[proto.id] = state
                fragment = self.fragment_of.get(proto.id, "")
                try:
                    await self._rerun(fragment=fragment)
                except SettleTimeout as error:  # say which control, on which page, in which scope
                    raise SettleTimeout(f"{error} (widget {user_key(proto.id)!r} on {self.page_name()}, "
                                        f"{'fragment' if fragment else 'full'} run)") from error
                return time.monotonic() - start
        return None

    async def smallest(self, key: str) -> float | None:
        """Move the slider with ``key=key`` to its smallest value (a quick training)."""
        found = [p for k, p in self.widgets.values() if k == "slider" and user_key(p.id) == key]
        if not found:
            return None
        state = WidgetState(id=found[0].id)
        if found[0].options:
            state.string_array_value.data.append(found[0].options[0])
        else:
            state.double_array_value.data.append(found[0].min)
        self.values[state.id] = state
        if found[0].form_id:  # held by the form until Train submits it: no run
            return None
        start = time.monotonic()
        await self._rerun(fragment=self.fragment_of.get(state.id, ""))
        return time.monotonic() - start

    def page_name(self) -> str:
        return next((path or "home" for path, h in self.pages.items() if h == self.page_hash), "?")

    def widget_keys(self) -> list[str]:
        return [user_key(wid) for wid in self.widgets]

    def has_widget(self, key: str) -> bool:
        return any(user_key(wid) == key for wid in self.widgets)

    async def click(self, key: str, timeout: float | None = None) -> float:
        """Press the button with ``key=key`` (a trigger value sent with one run only)."""
        button = next(p for k, p in self.widgets.values() if k == "button" and user_key(p.id) == key)
        start = time.monotonic()
        await self._rerun(extra=[WidgetState(id=button.id, trigger_value=True)], timeout=timeout,
                          fragment=self.fragment_of.get(button.id, ""))
        return time.monotonic() - start

    async def upload(self, name: str, data: bytes, resend: bool = False) -> float:
        """Upload one file through the sidebar's uploader (key "uploader") as the frontend does. With
        ``resend``, a second request with the same widget values follows as soon as the upload's run
        has started: what a browser sends (a status poll, a click) before the new sidebar arrives."""
        uploader = next(p for k, p in self.widgets.values() if k == "file_uploader" and user_key(p.id) == "uploader")
        start = time.monotonic()
        request_id = uuid.uuid4().hex
        future = self.file_urls[request_id] = asyncio.get_running_loop().create_future()
        msg = BackMsg()
        msg.file_urls_request.request_id, msg.file_urls_request.session_id = request_id, self.session_id
        msg.file_urls_request.file_names.append(name)
        await self._send(msg)
        urls = (await asyncio.wait_for(future, self.timeout)).file_urls[0]
        put = lambda: self.http.put(  # noqa: E731
            self.base + urls.upload_url, files={name: (name, data, "text/plain")},
            headers={"X-Xsrftoken": self.http.cookies.get(XSRF_COOKIE, "")}, timeout=self.timeout)
        try:
            response = await asyncio.to_thread(put)
        except requests.ConnectionError:  # a kept-alive connection the server closed (idle): browsers retry
            response = await asyncio.to_thread(put)
        self._check_http(response, "PUT upload")
        state = WidgetState(id=uploader.id)
        state.file_uploader_state_value.uploaded_file_info.append(UploadedFileInfo(
            name=name, size=len(data), file_id=urls.file_id,
            file_urls=FileURLs(file_id=urls.file_id, upload_url=urls.upload_url, delete_url=urls.delete_url)))
        self.values[uploader.id] = state
        if resend:
            runs = self.runs
            await self._send(self._client_state(None, "", None))
            while self.runs == runs and not self.closing:
                await asyncio.sleep(0.002)
        await self._rerun()
        return time.monotonic() - start

    # ------------------------------------------------------------------ what the page shows
    async def quiet(self) -> None:
        """Wait until no full run is in progress (a finished training reruns the page on its own:
        read in the middle of that run, the page holds only what was drawn so far)."""
        deadline = time.monotonic() + self.timeout
        while self.finished != self.runs and not self.closing:
            if time.monotonic() > deadline:
                raise SettleTimeout(f"page not settled within {self.timeout:.0f} s")
            self.changed.clear()
            try:
                await asyncio.wait_for(self.changed.wait(), max(deadline - time.monotonic(), 0.01))
            except TimeoutError:
                pass

    async def open_part(self, labels: set[str]) -> bool:
        """Open the page's part labelled one of ``labels`` (its bar of parts, ui/sections.py: a segmented
        control), as a click on it does; False if there is none."""
        for kind, proto in list(self.widgets.values()):
            options = [option.content for option in proto.options] if kind == "button_group" else []
            label = next((label for label in options if label in labels), None)
            if label is not None:
                self.values[proto.id] = chosen(proto.id, label)
                await self._rerun(fragment=self.fragment_of.get(proto.id, ""))
                return True
        return False
