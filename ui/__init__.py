"""Streamlit-side glue shared by app.py and the pages: the sidebar and per-session state."""
