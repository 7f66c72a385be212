"""A work-around for a CPython bug the server meets when threads parse Python at the same time.

CPython 3.11.0–3.11.7 and 3.12.0–3.12.1 keep the depth counter of ``ast.parse``'s tree builder in
interpreter-wide state (gh-106905, fixed by python/cpython#113035 in 3.11.8 and 3.12.2). When the
garbage collector runs Python code in the middle of one thread's ``ast.parse``, another thread can
parse too, and either raises ``SystemError: AST constructor recursion depth mismatch``. In this
server several threads parse: each session's script thread (Streamlit compiles a page with
``ast.parse`` the first time it runs), the training workers and the warm-up (importing
``torch._dynamo`` calls ``inspect.signature``, which parses text signatures), and any thread that
formats a traceback (3.11's carets). CI saw a page fail with it. The fix: one lock around
``ast.parse``, installed once at start-up, on the affected versions only.
"""
from __future__ import annotations

import ast
import functools
import sys
import threading

_install_lock = threading.Lock()


def has_ast_parse_race(version: tuple[int, ...] = tuple(sys.version_info[:3])) -> bool:
    """True on the CPython versions whose ``ast.parse`` is not safe in concurrent threads."""
    return (3, 11, 0) <= version < (3, 11, 8) or (3, 12, 0) <= version < (3, 12, 2)


def serialise_ast_parsing() -> None:
    """Make ``ast.parse`` take one process-wide re-entrant lock (a collector callback inside a parse
    may parse again on the same thread). Idempotent; nothing happens on a fixed Python."""
    if not has_ast_parse_race():
        return
    with _install_lock:
        if getattr(ast.parse, "_lmlab_serialised", False):
            return
        parse = ast.parse
        lock = threading.RLock()

        @functools.wraps(parse)
        def serialised_parse(*args, **kwargs):
            with lock:
                return parse(*args, **kwargs)

        serialised_parse._lmlab_serialised = True  # type: ignore[attr-defined]
        ast.parse = serialised_parse
