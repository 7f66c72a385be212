"""The serving room: what one server process keeps and runs for every student.

Owner identity (``owner``), one store interface with its in-process back end (``store``, ``stores``,
``sizes``, ``codecs``), jobs as specs run by registered runners on one scheduler (``scheduler``,
``job_queue``, ``jobs``, ``training``), sessions and the corpora they show, the warm-up, and the
work-arounds for Streamlit and CPython, each in its own module. Page helpers are in ``ui/``.
"""
