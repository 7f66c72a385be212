"""Our components-v2 elements (ui/plotly_element.py, ui/formula_element.py), keyed by their place.

A components-v2 element without a key is known by its data: each new chart or formula would mount a
new element (drawn from scratch) instead of updating the one shown. Keyed by its place on the page
(the same in every run that draws the page alike), the element stays and its script is called
with the new data; a run that sends the same data again calls nothing.
"""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import streamlit as st
from streamlit.errors import StreamlitDuplicateElementKey

STATIC_JS = Path(st.__file__).parent / "static" / "static" / "js"
"""Streamlit's frontend chunks, served by our own server under static/js/."""


def frontend_chunk(prefix: str) -> str:
    """The file name of the one chunk of Streamlit's frontend named ``<prefix>.<hash>.js``."""
    found = sorted(path.name for path in STATIC_JS.glob(f"{prefix}.*.js"))
    if len(found) != 1:
        raise RuntimeError(f"expected one {prefix} chunk in Streamlit's frontend, found {found}")
    return found[0]


def element_script(js_file: Path, **chunks: str) -> str:
    """An element's JS as sent with every element (inline, in each message): its lines without
    indentation, comment lines left out, and each ``__NAME__`` placeholder replaced by ``chunks[NAME]``."""
    lines = (line.strip() for line in js_file.read_text(encoding="utf-8").splitlines())
    source = "\n".join(line for line in lines if line and not line.startswith("//"))
    for name, value in chunks.items():
        source = source.replace(f"__{name}__", value)
    return source


def place_key(where: Any = None, prefix: str = "lmlab_plot") -> str:
    """A key naming the place the next element of ``where`` (``st`` if None) goes to: the same in
    every run that draws the page alike."""
    dg = st._main if where is None or where is st else where
    path = dg._get_write_delta_path_str()  # "[0, 3, 1]": root container, blocks, index
    return f"{prefix}_" + "_".join(part.strip() for part in path.strip("[]").split(","))


def show_placed(mount: Callable[..., Any], data: bytes, where: Any = None, key: str | None = None,
                prefix: str = "lmlab_plot") -> None:
    """``mount(data=data, key=…)`` in ``where`` (``st`` if None), keyed by ``key`` or else by its place.
    A second element written to the same place in one run (an ``st.empty`` filled again) is keyed
    by its data, as an element without a key is."""
    def mount_in(element_key: str | None) -> None:
        if where is None or where is st:
            mount(data=data, key=element_key)
        else:
            with where:
                mount(data=data, key=element_key)

    if key is not None:
        mount_in(key)
        return
    try:
        mount_in(place_key(where, prefix))
    except StreamlitDuplicateElementKey:
        mount_in(None)
