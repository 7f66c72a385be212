"""The RNN & BPTT and gradients pages never train in a script run: on the built-in corpora everything
they show is shipped (models, clipping-lab logs), and for an upload the page appears at once with its
cheap parts while the rest is trained by background jobs, started when the part (tab) that needs them
opens. Training is counted through the training loops' own step counter (lmcore.training.steps),
never by time."""
import pytest

from lmcore.samples import SAMPLES
from lmcore.training.steps import total_steps
from tests.apptest_helpers import each_part, errors, finish_jobs, run_page, show_part
from tests.test_instant_pages import assert_nothing_to_fetch
from server.job_queue import scheduler

CHARTS = {"rnn_bptt": 5, "gradients": 9}  # everything each page draws, over all its parts (tabs)


def charts_per_part(at, stem: str) -> dict[str, int]:
    """Charts each part of the page draws, every part opened in turn."""
    counts = {}
    for name in each_part(at, stem):
        assert errors(at) == [], (stem, name)
        counts[name] = len(at.get("plotly_chart"))
    return counts


@pytest.mark.parametrize("corpus", SAMPLES)
def test_first_open_on_a_built_in_corpus_trains_nothing_and_shows_everything(corpus):
    assert scheduler().wait_idle(600)  # runs other tests started must not count here
    before = total_steps()
    for stem, n_charts in CHARTS.items():
        at = run_page(stem, "en", query={"corpus": corpus})
        assert errors(at) == [], stem
        assert_nothing_to_fetch(at, stem)
        assert sum(charts_per_part(at, stem).values()) == n_charts, stem
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
    at.switch_page("app_pages/gradients.py").run()
    assert errors(at) == [] and len(at.get("plotly_chart")) == 1  # the first part: curves of random cells
    assert "owner_id" not in at.session_state  # nothing asked for a model yet (no job, ever, in this session)
    show_part(at, "gradients", "connectivity")  # needs the trained RNN and LSTM: one background run
    assert errors(at) == [] and len(at.get("plotly_chart")) == 0
    assert [b.label for b in at.button].count("Stop") == 1  # the user can stop it, or keep working
    show_part(at, "gradients", "run")  # needs the clipping lab's two runs: another one
    assert errors(at) == [] and len(at.get("plotly_chart")) == 0
    jobs = scheduler().jobs_of(at.session_state["owner_id"])
    assert sorted(job.kind for job in jobs) == ["clip", "rnn"]  # submitted, not run in the script
    assert charts_per_part(at, "gradients") == {"curves": 1, "why": 4, "connectivity": 0, "clipping": 1, "run": 0,
                                              "questions": 0}
    finish_jobs(at)
    assert errors(at) == [] and sum(charts_per_part(at, "gradients").values()) == 9
    assert total_steps() > before  # the jobs trained (in the scheduler's threads)
    at.switch_page("app_pages/rnn_bptt.py").run()  # the RNN trained for the gradients page serves this page too
    assert errors(at) == [] and sum(charts_per_part(at, "rnn_bptt").values()) == 5
    assert [job.kind for job in scheduler().jobs_of(at.session_state["owner_id"])].count("rnn") == 1
