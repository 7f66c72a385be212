"""The app itself (app.py runs :func:`run_app`): process set-up, the shared sidebar, the navigation."""
from __future__ import annotations

import os

import streamlit as st

from ui import warmup
from ui.navigation import PAGES
from ui.sidebar import render_sidebar
from ui.streamlit_fixes import close_spurious_page_not_found
from ui.state import tr


@st.cache_resource(show_spinner=False)
def configure_process() -> None:
    """Once per server process, before any page computes: torch runs each small model on one thread
    (runs go in parallel on the job scheduler's workers instead); no run changes it later. Then the
    warm-up (ui/warmup.py) prepares in the background what the pages need first."""
    import torch

    torch.set_num_threads(max(1, int(os.environ.get("LMLAB_TORCH_THREADS", "1"))))
    warmup.start()


def run_app() -> None:
    """One script run: the page the address names, under the shared sidebar."""
    with warmup.script_run():  # the background warm-up gives way while a page runs
        configure_process()
        st.set_page_config(page_title="LM Lab", page_icon=":material/translate:", layout="wide")
        close_spurious_page_not_found()
        render_sidebar()
        sections: dict[str, list] = {}
        for stem, url_path, section in PAGES:
            page = st.Page(f"pages/{stem}.py", title=tr(f"nav.{stem}"), url_path=url_path, default=stem == "home")
            sections.setdefault(tr(f"nav.section.{section}"), []).append(page)
        st.navigation(sections).run()
