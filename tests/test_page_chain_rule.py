"""The chain-rule page: its controls rerun and resend the scored section only (a fragment), and that
section draws only its open part (ui/sections.py)."""
import pytest

from tests.apptest_fragments import run_fragment
from tests.apptest_helpers import errors, kept_settings, run_page, show_part

CHARTS = {"chain": 1, "perplexity": 3}  # bars | the die, ln P and PPL token by token


@pytest.mark.parametrize("part", list(CHARTS))
@pytest.mark.parametrize("widget, value", [("chain_order", 2), ("chain_method", "add-delta"), ("chain_mode", "type")])
def test_a_control_reruns_and_resends_the_scored_section_only(widget, value, part):
    at = show_part(run_page("chain_rule", "en"), "chain_rule", part)
    assert not errors(at) and len(at.get("plotly_chart")) == CHARTS[part]
    before = [el.value for el in at.latex]
    control = next(w for kind in ("slider", "selectbox", "radio") for w in at.get(kind) if w.key == widget)
    control.set_value(value)
    run = run_fragment(at, "chain_rule")
    assert not errors(at)
    assert run.deltas and not run.outside  # every element it sent belongs to the section: no sidebar, no title
    if widget == "chain_mode":  # nothing typed yet: a hint instead of charts
        assert at.warning and not at.get("plotly_chart")
    else:
        assert len(at.get("plotly_chart")) == CHARTS[part] and [el.value for el in at.latex] != before
    at.run()
    assert not errors(at) and kept_settings(at)["n"] == ("2" if widget == "chain_order" else "3")
    assert at.query_params.get("part") == part and "n" not in at.query_params  # the address names the part, not settings


def test_each_part_draws_its_own_elements_only():
    at = run_page("chain_rule", "en")
    chain = (len(at.get("plotly_chart")), len(at.latex), len(at.metric))
    show_part(at, "chain_rule", "perplexity")
    perplexity = (len(at.get("plotly_chart")), len(at.latex), len(at.metric))
    assert chain == (1, 1, 0)  # the bars and the product
    assert perplexity == (3, 1, 4)  # the die and two curves, PPL = exp(J), four numbers
    assert r"\prod" not in at.latex[0].value and "PPL" in at.latex[0].value
