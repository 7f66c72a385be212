"""Shared fixtures. The autouse fixture keeps Streamlit from treating pages/ as a legacy
(v1) multipage folder: with it, AppTest would run a page file alone after the first run,
skipping app.py and its shared sidebar (Streamlit 1.67)."""
import os

import pytest

os.environ.setdefault("TORCH_NUM_THREADS", "1")


@pytest.fixture(autouse=True)
def no_pages_directory(monkeypatch):
    from streamlit.runtime import pages_manager

    original_init = pages_manager.PagesManager.__init__

    def init(self, *args, **kwargs):
        original_init(self, *args, **kwargs)
        pages_manager.PagesManager.uses_pages_directory = False

    monkeypatch.setattr(pages_manager.PagesManager, "__init__", init)
    pages_manager.PagesManager.uses_pages_directory = False
    yield


@pytest.fixture(scope="session", autouse=True)
def no_training_left_running_at_exit():
    """Runs that pages queued in AppTest go on in the scheduler's threads; a thread still inside
    torch when the interpreter exits aborts the process ("terminate called ..."). Stop them first."""
    yield
    from ui.jobs import scheduler

    sched = scheduler()
    sched.stop_all()
    sched.wait_idle(120)
