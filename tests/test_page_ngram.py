"""Page checks for N-grams & smoothing and Chain rule & perplexity (AppTest, both languages)."""
import pytest

from lmcore.i18n import t
from tests.apptest_fragments import run_fragment
from tests.apptest_helpers import errors, kept_settings, opened_with_work_made_ahead, run_page, show_part, text_tables


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_ngram_table_has_sum_row(lang):
    at = run_page("ngram", lang, query={"n": "2"})
    assert not errors(at)
    frame = text_tables(at)[0]
    last = frame.iloc[-1]
    assert last[t("ngram.table.word", lang)] == t("ngram.table.sum", lang)
    for m in ("mle", "add-delta", "kn-interp", "kn-backoff", "modified-kn"):
        assert last[t(f"ngram.method.{m}", lang)] == pytest.approx(1.0, abs=1e-9)
    assert last[t("ngram.method.kn-notes", lang)] > 1.0
    assert len(at.get("plotly_chart")) == 1  # the first part (tab): next words (the unseen mass is a row of the table)
    assert frame.iloc[-2][t("ngram.table.word", lang)] == t("ngram.table.unseen", lang)
    assert not at.latex  # the formulas run only in their open expander
    at.session_state["ngram_formula_open"] = True
    at.run()
    assert any("frac" in el.value for el in at.get("latex")) and not errors(at)
    assert len(text_tables(at)) == 1 and len(at.get("plotly_chart")) == 1


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_chain_rule_explains_mle_zero(lang):
    at = run_page("chain_rule", lang, query={"method": "mle", "n": "2"})
    assert not errors(at)
    at.radio(key="chain_mode").set_value("type").run()
    at.text_input(key="chain_typed").input("the zzqxv").run()
    assert not errors(at)
    oov_text = t("chain_rule.zero.oov", lang, token="zzqxv", pos=2)
    assert oov_text in [w.value for w in at.warning]  # under the product, which is 0
    show_part(at, "chain_rule", "perplexity")
    assert oov_text in [w.value for w in at.warning] and t("chain_rule.infinite", lang) in [e.value for e in at.error]
    assert any(m.value == "∞" for m in at.metric)
    at.selectbox(key="chain_method").set_value("modified-kn").run()
    assert not at.warning and not errors(at)
    assert t("chain_rule.die", lang, k=1)[:5] in at.info[0].value


def test_ngram_typed_context_unseen_warns():
    at = run_page("ngram", "en", query={"n": "3"})
    at.radio(key="ngram_context_mode").set_value("type").run()
    at.text_input(key="ngram_context_typed").input("zzqxv qqqzz").run()
    assert not errors(at)
    assert t("ngram.context_unseen", "en") in [w.value for w in at.warning]
    last = text_tables(at)[0].iloc[-1]
    assert last[t("ngram.method.mle", "en")] == pytest.approx(1.0)


@pytest.mark.parametrize("part, fragment, widget, value, n_charts", [
    ("words", "ngram_next_words", "ngram_rows", 20, 1), ("words", "ngram_next_words", "ngram_word", None, 1),
    ("sample", "ngram_samples", "ngram_seed", 3, 0),
])
def test_a_section_control_reruns_and_resends_its_section_only(part, fragment, widget, value, n_charts):
    at = run_page("ngram", "en", query={"part": part})
    at.session_state["ngram_formula_open"] = True  # the word's selectbox is in the formulas' expander
    at.run()
    assert at.segmented_control(key="part_ngram").value and not errors(at)
    charts_before = len(at.get("plotly_chart"))
    rows_before = len(text_tables(at)[0]) if text_tables(at) else 0
    control = next(w for kind in ("slider", "selectbox", "number_input") for w in at.get(kind) if w.key == widget)
    control.set_value(value if value is not None else control.options[1])
    run = run_fragment(at, fragment)
    assert not errors(at)
    assert run.deltas and not run.outside  # every element it sent belongs to the section
    assert len(at.get("plotly_chart")) == n_charts  # exactly the section's own charts were resent
    if widget == "ngram_rows":
        assert len(text_tables(at)[0]) == 20 + (rows_before - 10)  # the table took the new row count
    at.run()
    assert not errors(at) and len(at.get("plotly_chart")) == charts_before


def test_the_settings_rerun_the_page_body_only_and_not_the_sidebar():
    at = run_page("ngram", "en")
    at.slider(key="ngram_order").set_value(4)
    run = run_fragment(at, "ngram_settings")
    assert not errors(at) and run.deltas
    assert all(m.delta.fragment_id for m in run.deltas)  # the body's fragment and those inside it: no sidebar
    at.run()
    assert not errors(at) and kept_settings(at)["n"] == "4" and len(at.get("plotly_chart")) == 1


def test_an_open_share_link_follows_the_settings_changed_in_the_page_body():
    """The share link sits in the sidebar, which the body's fragment cannot redraw: a settings change
    while it is open reruns the whole page, so the link (and QR code) says the new order."""
    at = run_page("ngram", "en")
    at.session_state["teaching_share_box"] = True
    at.run()
    assert [t.value for t in at.sidebar.get("text") if "n=3" in t.value]
    at.slider(key="ngram_order").set_value(4)
    run_fragment(at, "ngram_settings")
    assert not errors(at)
    assert [t.value for t in at.sidebar.get("text") if "n=4" in t.value]


def test_a_move_of_the_order_finds_its_models_table_and_chart_made_ahead(monkeypatch):
    """server/prefetch.py: the next-words part hands over the orders one away from the one shown; once
    that work is done, a move of the order to one of them builds no model, no table and no figure."""
    import lmcore.ngram.compare as compare
    from lmcore.ngram import model

    query = {"n": "3", "delta": "0.37", "d": "0.55"}  # settings no other test uses: nothing made before
    at, tasks, calls = opened_with_work_made_ahead(monkeypatch, "ngram", query, {
        "models": (model.NgramModel, "__init__"), "tables": (compare, "next_word_table")})
    assert sorted(key[2] for key, _ in tasks if key[0] == "ngram_words") == [2, 4]
    at.slider(key="ngram_order").set_value(4)
    run_fragment(at, "ngram_settings")
    assert not errors(at) and calls == {"models": [], "tables": [], "figures": []}
    assert at.selectbox(key="ngram_context_pick").index == 0  # the context made ahead is the one shown
    at.slider(key="ngram_order").set_value(5)  # handed over by this move's run, not done: made in its run
    run_fragment(at, "ngram_settings")
    assert not errors(at) and all(calls.values())
