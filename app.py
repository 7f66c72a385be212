"""LM Lab: the entry point. Builds the shared sidebar and the navigation; each page is a file in pages/."""
import importlib
import os
import threading

import streamlit as st

from ui.navigation import PAGES
from ui.sidebar import render_sidebar
from ui.streamlit_fixes import close_spurious_page_not_found
from ui.state import tr


@st.cache_resource(show_spinner=False)
def configure_process() -> None:
    """Once per server process, before any page computes: torch runs each small model on one thread
    (runs go in parallel on the job scheduler's workers instead); no run changes it later."""
    import torch

    torch.set_num_threads(max(1, int(os.environ.get("LMLAB_TORCH_THREADS", "1"))))
    threading.Thread(target=_warm_imports, name="lmlab-warm-imports", daemon=True).start()


WARM_MODULES = ("pandas", "pyarrow", "plotly.graph_objects", "lmcore.figures.lstm", "lmcore.figures.seq2seq",
                "lmcore.figures.ngram", "lmcore.figures.decoding", "lmcore.training.comparison",
                "torch._dynamo")  # imported by every optimizer step: the first training run would wait for it


def _warm_imports() -> None:
    """Import what the pages need (pandas alone takes about a second) while the first visitor reads
    the home page, so the first page they open does not wait for it."""
    for name in WARM_MODULES:
        try:
            importlib.import_module(name)
        except Exception:  # a page that needs it reports the problem itself
            pass


configure_process()
st.set_page_config(page_title="LM Lab", page_icon=":material/translate:", layout="wide")
close_spurious_page_not_found()
render_sidebar()
sections: dict[str, list] = {}
for stem, url_path, section in PAGES:
    page = st.Page(f"pages/{stem}.py", title=tr(f"nav.{stem}"), url_path=url_path, default=stem == "home")
    sections.setdefault(tr(f"nav.section.{section}"), []).append(page)
st.navigation(sections).run()
