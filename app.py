"""LM Lab: the entry point. Builds the shared sidebar and the navigation (ui/entry.py); each page is a
file in pages/.

Streamlit makes this script the process's ``__main__`` while it runs, and a process started with
``spawn`` (the corpus workers, ui/corpus_worker.py) re-reads ``__main__`` as ``__mp_main__``:
there it must run nothing (it would start a server's warm-up, and workers of its own).
"""
if __name__ != "__mp_main__":
    from ui.entry import run_app

    run_app()
