"""LM Lab: the entry point. Builds the shared sidebar and the navigation; each page is a file in pages/."""
import streamlit as st

from ui.sidebar import render_sidebar
from ui.state import tr

# (file stem, url path, section). Every url path differs from its file's stem: with a folder named
# pages/ beside st.navigation, a deep link equal to a stem would run that file alone (Streamlit 1.67).
PAGES = [
    ("home", "welcome", "basics"),
    ("corpus", "corpus-stats", "basics"),
    ("chain_rule", "perplexity", "counts"),
    ("ngram", "smoothing", "counts"),
    ("rnn_bptt", "rnn-forward-bptt", "neural"),
    ("gradients", "vanishing-gradients", "neural"),
    ("lstm", "lstm-gates", "neural"),
    ("seq2seq", "encoder-decoder", "generation"),
    ("decoding", "beam-search", "generation"),
]

st.set_page_config(page_title="LM Lab", page_icon="🔤", layout="wide")
render_sidebar()
sections: dict[str, list] = {}
for stem, url_path, section in PAGES:
    page = st.Page(f"pages/{stem}.py", title=tr(f"nav.{stem}"), url_path=url_path, default=stem == "home")
    sections.setdefault(tr(f"nav.section.{section}"), []).append(page)
st.navigation(sections).run()
