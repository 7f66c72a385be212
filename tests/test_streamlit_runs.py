"""server/streamlit_runs.py: a full run's elements and end reach the browser when a fragment's rerun
request is handled just after the run ended (tests/run_end_probe.py makes that moment happen every
time on a real AppSession). Without the work-around Streamlit 1.67 drops them: that case is kept as a
test, so a Streamlit that fixes it shows the work-around can go."""
import subprocess
import sys
from pathlib import Path

import streamlit

from tests.apptest_helpers import run_page

ROOT = Path(__file__).resolve().parent.parent
FULL_RUN = ["start app", "draw outside it", "end app:0"]
FRAGMENT_RUN = ["start fragment", "draw in the fragment", "end fragment:3"]  # its first draw, replaced


def probe(folder: Path, *flags: str) -> list[str]:
    out = subprocess.run([sys.executable, str(ROOT / "tests" / "run_end_probe.py"), str(folder), *flags],
                         capture_output=True, text=True, timeout=180, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    return out.stdout.splitlines()


def test_with_the_work_around_the_full_run_then_the_fragment_run_reach_the_browser(tmp_path):
    assert probe(tmp_path, "--fixed") == FULL_RUN + FRAGMENT_RUN


def test_streamlit_1_67_alone_drops_the_whole_full_run(tmp_path):
    assert streamlit.__version__ == "1.67.0"
    assert probe(tmp_path) == FRAGMENT_RUN


def test_the_app_installs_the_work_around_at_start_up():
    from streamlit.runtime.app_session import AppSession
    run_page("home")
    assert getattr(AppSession.request_rerun, "_lmlab_keeps_finish", False)
