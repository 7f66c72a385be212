"""Placeholder until this page is built."""
import streamlit as st

from ui.state import tr

st.title(tr("nav.gradients"))
st.info(tr("page.placeholder"))
