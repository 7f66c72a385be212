"""The corpus page: the top-tokens slider reruns and resends its table alone (a fragment), not the
page (its metrics, charts and sidebar)."""
from tests.apptest_fragments import run_fragment, widget_fragment
from tests.apptest_helpers import errors, kept_settings, run_page, show_part


def test_the_top_tokens_slider_reruns_its_table_only():
    at = show_part(run_page("corpus", "en"), "corpus", "tokens")
    assert not errors(at) and at.metric and at.get("plotly_chart")
    at.select_slider(key="corpus_top").set_value(50)
    run = run_fragment(at, "corpus_top_tokens")
    assert not errors(at)
    assert run.deltas and not run.outside  # no metric, chart, title or sidebar sent again
    assert widget_fragment(run, "corpus_top") == run.deltas[0].delta.fragment_id
    tables = [el.proto.body for el in at.get("html") if "<table" in el.proto.body]
    assert len(tables) == 1 and tables[0].count("<tr>") == 1 + 50  # the header and the 50 most frequent
    at.run()
    assert not errors(at) and kept_settings(at)["top"] == "50" and at.query_params.get("part") == "tokens"
    assert "top" not in at.query_params
