"""The RNN & BPTT and gradients pages never train in a script run: on the built-in corpora everything
they show is shipped (models, clipping-lab logs), and for an upload the page appears at once with its
cheap parts while the rest is trained by background jobs. Training is counted through the training
loops' own step counter (lmcore.training.steps), never by time."""
import pytest

from lmcore.samples import SAMPLES
from lmcore.training.steps import total_steps
from tests.apptest_helpers import errors, finish_jobs, run_page
from ui.jobs import scheduler

CHARTS = {"rnn_bptt": 5, "gradients": 9}  # everything each page draws


@pytest.mark.parametrize("corpus", SAMPLES)
def test_first_open_on_a_built_in_corpus_trains_nothing_and_shows_everything(corpus):
    assert scheduler().wait_idle(600)  # runs other tests started must not count here
    before = total_steps()
    for stem, n_charts in CHARTS.items():
        at = run_page(stem, "en", query={"corpus": corpus})
        assert errors(at) == [], stem
        assert len(at.get("plotly_chart")) == n_charts, stem
        assert scheduler().jobs_of(at.session_state["owner_id"]) == [], stem  # no background run either
    assert total_steps() == before


def test_an_upload_shows_the_cheap_parts_at_once_and_the_rest_when_its_jobs_finish():
    text = " ".join(f"The {a} {b} sat near the {c} river today." for a in ("red", "old", "small", "happy")
                    for b in ("cat", "dog", "bird", "child", "robot") for c in ("quiet", "green", "bright"))
    assert scheduler().wait_idle(600)
    at = run_page("home", "en")
    at.sidebar.get("file_uploader")[0].set_value(("mine.txt", text.encode(), "text/plain"))
    at.run()
    before = total_steps()
    at.switch_page("pages/gradients.py").run()
    assert errors(at) == []
    jobs = scheduler().jobs_of(at.session_state["owner_id"])
    assert sorted(job.kind for job in jobs) == ["clip", "rnn"]  # submitted, not run in the script
    assert len(at.get("plotly_chart")) == 6  # curves, 3 panels, LSTM panel, cliff: random cells, no training
    assert [b.label for b in at.button].count("Stop") == 2  # the user can stop them, or keep working
    finish_jobs(at)
    assert errors(at) == [] and len(at.get("plotly_chart")) == 9
    assert total_steps() > before  # the jobs trained (in the scheduler's threads)
    at.switch_page("pages/rnn_bptt.py").run()  # the RNN trained for the gradients page serves this page too
    assert errors(at) == [] and len(at.get("plotly_chart")) == 5
    assert [job.kind for job in scheduler().jobs_of(at.session_state["owner_id"])].count("rnn") == 1
