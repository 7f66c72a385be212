"""LM Lab: the entry point. Builds the shared sidebar and the navigation; each page is a file in pages/."""
import streamlit as st

from ui.navigation import PAGES
from ui.sidebar import render_sidebar
from ui.state import tr

st.set_page_config(page_title="LM Lab", page_icon="🔤", layout="wide")
render_sidebar()
sections: dict[str, list] = {}
for stem, url_path, section in PAGES:
    page = st.Page(f"pages/{stem}.py", title=tr(f"nav.{stem}"), url_path=url_path, default=stem == "home")
    sections.setdefault(tr(f"nav.section.{section}"), []).append(page)
st.navigation(sections).run()
