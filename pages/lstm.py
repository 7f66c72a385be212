"""Placeholder until this page is built."""
import streamlit as st

from ui.state import tr

st.title(tr("nav.lstm"))
st.info(tr("page.placeholder"))
