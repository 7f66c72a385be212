"""LM Lab: the entry point. Sets the process up once, then builds the shared sidebar and the navigation
(ui/entry.py); each page is a file in app_pages/.

Streamlit makes this script the process's ``__main__`` while it runs, and a process started with
``spawn`` (the corpus workers, server/corpus_worker.py) re-reads ``__main__`` as ``__mp_main__``:
there it must run nothing (it would start a server's warm-up, and workers of its own).
"""
if __name__ != "__mp_main__":
    import streamlit as st

    from server import warmup
    from server.python_fixes import serialise_ast_parsing
    from server.streamlit_runs import keep_finish_of_replaced_runner
    from server.sessions import start_session_closer
    from server.corpus_use import release_memory
    from server.allocator import limit_heap_fragmentation
    from ui.entry import run_app
    from server.env import env_number

    @st.cache_resource(show_spinner=False)
    def configure_process() -> None:
        """Once per server process, before any page computes: torch runs each small model on one thread
        (runs go in parallel on the job scheduler's workers instead); no run changes it later. Then the
        warm-up (server/warmup.py) prepares in the background what the pages need first. Before any of
        that, ``ast.parse`` is made safe for this server's threads (server/python_fixes.py), a run's end
        no longer lost to a fragment's request (server/streamlit_runs.py), and the allocator told to keep
        fewer holes (server/allocator.py); sessions whose browser has gone are closed and their
        memory given back (server/sessions.py). ``kill -USR1 <pid>`` writes every thread's stack to the
        server's log (what a stuck server is doing, as the deploy tests print when a page never connects)."""
        import faulthandler
        import signal

        import torch

        faulthandler.register(signal.SIGUSR1, all_threads=True)

        serialise_ast_parsing()
        keep_finish_of_replaced_runner()
        limit_heap_fragmentation()
        torch.set_num_threads(int(env_number("LMLAB_TORCH_THREADS", 1, minimum=1)))
        start_session_closer(after_close=release_memory)
        warmup.start()

    run_app(configure_process)
