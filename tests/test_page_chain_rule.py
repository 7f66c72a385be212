"""The chain-rule page: its controls rerun and resend the scored section only (a fragment)."""
import pytest

from tests.apptest_fragments import run_fragment
from tests.apptest_helpers import errors, run_page


@pytest.mark.parametrize("widget, value", [("chain_order", 2), ("chain_method", "add-delta"), ("chain_mode", "type")])
def test_a_control_reruns_and_resends_the_scored_section_only(widget, value):
    at = run_page("chain_rule", "en")
    assert not errors(at) and len(at.get("plotly_chart")) == 4
    ppl_before = at.metric[0].value
    control = next(w for kind in ("slider", "selectbox", "radio") for w in at.get(kind) if w.key == widget)
    control.set_value(value)
    run = run_fragment(at, "chain_rule")
    assert not errors(at)
    assert run.deltas and not run.outside  # every element it sent belongs to the section: no sidebar, no title
    if widget == "chain_mode":  # nothing typed yet: a hint instead of charts
        assert at.warning and not at.get("plotly_chart")
    else:
        assert len(at.get("plotly_chart")) == 4 and at.metric[0].value != ppl_before
    at.run()
    assert not errors(at) and at.query_params.get("n") == ("2" if widget == "chain_order" else "3")
