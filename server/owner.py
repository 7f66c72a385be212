"""Who owns uploads, runs and models: the browser, not the Streamlit session.

A page reload starts a new session, but the browser keeps its cookie, so the reloaded page finds
its runs and the models it trained again. The owner key is a hash of the browser's XSRF token (the
token itself never leaves this module), else the session's own id (AppTest, another server).
"""
from __future__ import annotations

import hashlib
import uuid

import streamlit as st
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

from server.presence import presence

XSRF_COOKIE = "_streamlit_xsrf"


def owner_id() -> str:
    """This browser's owner key (kept in session state), and a note that it is here now (presence)."""
    if "owner_id" not in st.session_state:
        st.session_state["owner_id"] = _new_owner_id()
    owner = st.session_state["owner_id"]
    ctx = get_script_run_ctx()
    if ctx is not None:
        presence().touch(ctx.session_id, owner)
    return owner


def _new_owner_id() -> str:
    token = None
    try:
        from streamlit.web.server.starlette.starlette_app_utils import decode_xsrf_token_string

        cookie = st.context.cookies.get(XSRF_COOKIE)
        token = decode_xsrf_token_string(cookie)[0] if cookie else None
    except Exception:  # no cookie support here (AppTest, another server): fall back to the session
        token = None
    if token:
        return "browser-" + hashlib.sha256(token).hexdigest()[:20]
    return "session-" + uuid.uuid4().hex  # one per Streamlit session (AppTest gives all the same id)
