"""Figures built once per inputs and shared by every session.

Building a Plotly figure in Python (validating every property) costs more server time than the
data it shows: 30-110 ms of a page's 100-220 ms warm run here, and under a class of 30 a quarter
of the time the server's interpreter lock was held went to Plotly (py-spy, ``--gil``). In class
most students look at the same corpus with the same settings, so a figure is made once and reused.

A cached figure is shared read-only: ``st.plotly_chart`` copies it (``to_dict``) and no page changes
a figure after building it. Entries go after an hour unused, at 256 entries, or when the server has
no session left (:func:`forget_figures`, from ui/corpus_use.py's ``release_memory``).
"""
from __future__ import annotations

import logging
from collections.abc import Callable, Hashable
from typing import Any

import streamlit as st
from streamlit.runtime.caching.cache_errors import UnhashableParamError

_log = logging.getLogger(__name__)


@st.cache_resource(show_spinner=False, max_entries=256, ttl=3600)
def _figure(name: str, key: Hashable, _make: Callable[[], Any]):
    return _make()


def keyed_figure(name: str, key: tuple, make: Callable[[], Any]):
    """``make()``, once per ``name`` and ``key`` (the key names everything the figure shows)."""
    return _figure(name, key, make)


def chart(builder: Callable[..., Any], *args: Any, **kwargs: Any):
    """``builder(*args, **kwargs)``, once per builder and argument values (hashed by Streamlit's
    cache: arrays, numbers, strings, dataclasses); arguments it cannot hash build the figure anew."""
    name = f"{builder.__module__}.{builder.__qualname__}"
    try:
        return _figure(name, (args, tuple(sorted(kwargs.items()))), lambda: builder(*args, **kwargs))
    except UnhashableParamError:
        _log.warning("figure %s built without its cache: arguments not hashable", name)
        return builder(*args, **kwargs)


def forget_figures() -> None:
    """Drop every cached figure (the server is idle: nobody is looking at them)."""
    _figure.clear()
