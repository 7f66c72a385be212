"""The app itself (app.py runs :func:`run_app`): the shared sidebar and the navigation."""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import streamlit as st

from server import warmup
from server.preload import preload_page_code
from ui import live_class
from ui.navigation import PAGES
from ui.sidebar import render_sidebar
from ui.state import tr

# The tab icon, a file of this repo (Streamlit inlines an SVG as a data: URL): a ":material/…" icon here
# is an SVG the browser fetches from a font host, which a classroom behind a firewall cannot reach.
PAGE_ICON = Path(__file__).resolve().parents[1] / "assets" / "page_icon.svg"
STEM_OF = {url_path: stem for stem, url_path, _ in PAGES}


def run_app(configure_process: Callable[[], None]) -> None:
    """One script run: the process set up (once: ``configure_process`` is cached), then the page the
    address names, under the shared sidebar."""
    with warmup.script_run():  # the background warm-up gives way while a page runs
        configure_process()
        st.set_page_config(page_title="LM Lab", page_icon=PAGE_ICON, layout="wide")
        render_sidebar()
        sections: dict[str, list] = {}
        for stem, url_path, section in PAGES:
            page = st.Page(f"app_pages/{stem}.py", title=tr(f"nav.{stem}"), url_path=url_path, default=stem == "home")
            sections.setdefault(tr(f"nav.section.{section}"), []).append(page)
        current = st.navigation(sections)
        live_class.before_page(STEM_OF.get(current.url_path, "home"))  # a live class's join card and bar
        current.run()
        live_class.after_page()
        preload_page_code()  # the frontend code of element kinds this page lacks, in idle time (once a tab)
