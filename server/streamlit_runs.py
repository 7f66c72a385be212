"""A work-around for the end of a run that Streamlit 1.67's server can drop before the browser sees it.

A session's script runner ends its run in its own thread: it queues the run's finish (the browser's
``script_finished``) as a callback on the server's event loop, then stops taking requests. A
fragment's rerun request handled on the event loop *between* those two moments and that callback
(a ``run_every`` timer, or a widget in a fragment, a moment after a full run ends on a busy server)
finds the runner stopped, so the session starts a new one, and then ignores the old runner's
queued finish as an event from a runner that is no longer its own
(``AppSession._handle_scriptrunner_event_on_event_loop``: ``sender is not self._scriptrunner``).
Every event the old runner queued after the loop's last pass is dropped with it: the run's last
elements and its end (tests/run_end_probe.py, holding the loop for the whole run, loses all of
it). The browser then sees a fragment run start and end but not the full run's end: the frontend
keeps the previous run's stale elements and misses the new ones, and a client waiting for the run
(the classroom bench: 3 of 6 runs of 30 students) waits for ever.

The fix: when a runner that has stopped taking requests refuses one and a new runner replaces it,
the events the old runner queued before that are handled as the session's own, in order, until
its run's end, its shutdown, or the new runner's start. They all come before the new runner's
start (a stopped runner queues nothing but its shutdown; a runner the session stopped mid-run, from
the menu's Stop, may still draw, and its elements before the new run starts are the ones the browser
should see). Its shutdown is still ignored (it would forget the new runner), and so is everything
from a runner the session stopped to start a full run at once (``runner.fastReruns``): that runner
is never asked, so it never refuses.
"""
from __future__ import annotations

import functools
import threading

from streamlit.runtime.app_session import AppSession
from streamlit.runtime.scriptrunner import ScriptRunner, ScriptRunnerEvent

FINISHES = frozenset({
    ScriptRunnerEvent.SCRIPT_STOPPED_WITH_SUCCESS,
    ScriptRunnerEvent.SCRIPT_STOPPED_WITH_COMPILE_ERROR,
    ScriptRunnerEvent.FRAGMENT_STOPPED_WITH_SUCCESS,
})
_install_lock = threading.Lock()


def keep_finish_of_replaced_runner() -> None:
    """Install the fix on Streamlit's ``ScriptRunner`` and ``AppSession`` classes. Idempotent."""
    with _install_lock:
        if getattr(AppSession.request_rerun, "_lmlab_keeps_finish", False):
            return
        runner_request_rerun = ScriptRunner.request_rerun
        session_request_rerun = AppSession.request_rerun
        handle_event = AppSession._handle_scriptrunner_event_on_event_loop

        @functools.wraps(runner_request_rerun)
        def request_rerun_of_runner(self, rerun_data):
            accepted = runner_request_rerun(self, rerun_data)
            if not accepted:
                self._lmlab_refused = True  # it had stopped taking requests
            return accepted

        @functools.wraps(session_request_rerun)
        def request_rerun_of_session(self, client_state):
            old = self._scriptrunner
            session_request_rerun(self, client_state)
            if old is not None and self._scriptrunner is not old and getattr(old, "_lmlab_refused", False):
                self._lmlab_replaced_runner = old

        @functools.wraps(handle_event)
        def handle(self, sender, event, *args, **kwargs):
            replaced = getattr(self, "_lmlab_replaced_runner", None)
            if replaced is not None:
                if sender is replaced and sender is not self._scriptrunner:
                    if event == ScriptRunnerEvent.SHUTDOWN:
                        self._lmlab_replaced_runner = None
                        return handle_event(self, sender, event, *args, **kwargs)  # ignored, as before
                    if event in FINISHES:
                        self._lmlab_replaced_runner = None
                    current, self._scriptrunner = self._scriptrunner, sender
                    try:  # handled as the session's own runner's: it reaches the browser
                        return handle_event(self, sender, event, *args, **kwargs)
                    finally:
                        self._scriptrunner = current
                if sender is self._scriptrunner and event == ScriptRunnerEvent.SCRIPT_STARTED:
                    self._lmlab_replaced_runner = None  # the new run starts: the old one's is over
            return handle_event(self, sender, event, *args, **kwargs)

        request_rerun_of_session._lmlab_keeps_finish = True
        ScriptRunner.request_rerun = request_rerun_of_runner
        AppSession.request_rerun = request_rerun_of_session
        AppSession._handle_scriptrunner_event_on_event_loop = handle
