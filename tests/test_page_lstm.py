"""LSTM gates & memory page (AppTest, both languages): train from the page, inspect, compare."""
import json
import re

import pytest
from scipy.special import rel_entr

from lmcore.corpus import tokenize
from lmcore.i18n import catalogue, t
from lmcore.samples import SAMPLES, load_sample
from lmcore.training.config import TrainConfig
from lmcore.training.persist import PRETRAINED_DIR, file_name, load_pretrained
from tests.apptest_fragments import run_fragment
from tests.apptest_helpers import (errors, finish_jobs, opened_with_work_made_ahead, run_page, show_part, text_tables,
                                   trace_values)
from tests.browser_server import open_page, wait_for_app


@pytest.fixture(autouse=True)
def no_time_cap(monkeypatch):
    """However busy the machine, a test's run is never cut by the server's time cap (it would end
    "timed out" instead of "done": an outcome that depends on the load)."""
    from server.job_queue import scheduler

    monkeypatch.setattr(scheduler(), "time_cap", 1e6)


def _train_small(at, cell="lstm"):
    at.selectbox(key="lstm_cell").set_value(cell)
    at.select_slider(key="lstm_hidden").set_value(16)
    at.select_slider(key="lstm_steps").set_value(50)
    at.button(key="lstm_train").click().run()
    finish_jobs(at)
    assert not errors(at)


def _figures(at):
    return [json.loads(el.proto.spec) for el in at.get("plotly_chart")]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_page_trains_and_shows_gates_gradient_path_counterfactual_and_comparison(lang):
    at = run_page("lstm", lang, timeout=300, query={"p": "2", "sig": "c", "sort": "variance"})
    assert not errors(at)
    _train_small(at, "rnn")
    _train_small(at, "lstm")
    done_prefix = catalogue()["lstm.train.done"][lang == "zh"].split("{")[0]  # the text before the numbers
    assert any(s.value.startswith(done_prefix) for s in at.success)
    figures = _figures(at)  # the first part (tab): gates and cell state
    titles = [str(f["layout"].get("title", {}).get("text", "")) for f in figures]
    assert t("lstm.signal.c", lang) in titles  # the shared link's signal and ordering
    assert at.selectbox(key="lstm_sort").value == "variance"
    heat = next(f for f in figures if f["data"][0]["type"] == "heatmap")
    n_steps = len(heat["data"][0]["x"])
    assert heat["data"][0]["x"] == list(range(n_steps))  # integer positions, tokens as tick text
    assert heat["layout"]["xaxis"]["ticktext"][0] == "&lt;s&gt;"
    show_part(at, "lstm", "gradient")
    grad = next(f for f in _figures(at) if f["layout"].get("yaxis", {}).get("type") == "log" and len(f["data"]) >= 5)
    assert grad["data"][0]["x"] == list(range(n_steps))  # ∏ f, exact, means and the RNN on the same passage
    show_part(at, "lstm", "compare")
    frame = text_tables(at)[0]
    models = list(frame[t("lstm.cmp.model", lang)])
    for row in ("unigram", "mkn3"):
        assert t(f"lstm.cmp.row.{row}", lang) in models
    assert "LSTM" in models and "RNN" in models


def test_one_click_trains_the_missing_cells_for_the_comparison():
    at = run_page("lstm", "en", timeout=300, query={"corpus": "synthetic", "sents": "200"})  # no shipped model: the
    # default LSTM trains in the background at once
    _train_small(at)
    show_part(at, "lstm", "compare")
    frame = text_tables(at)[0]
    assert list(frame[t("lstm.cmp.model", "en")])[-1] == "LSTM"
    at.button(key="lstm_cmp_train").click().run(timeout=300)
    finish_jobs(at)
    assert not errors(at)
    models = list(text_tables(at)[0][t("lstm.cmp.model", "en")])
    assert models[-3:] == ["RNN", "LSTM", "GRU"]
    assert not [b for b in at.button if b.key == "lstm_cmp_train"]  # nothing missing any more


def test_custom_passage_is_escaped_and_counterfactual_moves_distribution():
    at = run_page("lstm", "en", timeout=300)  # nothing trained: the page inspects the shipped LSTM
    at.text_input(key="lstm_custom").input("<b>the</b> cat sat").run()
    assert not errors(at)
    html_blocks = [m.proto.body for m in at.get("html") if "font-family:monospace" in m.proto.body]
    assert html_blocks and "<b>" not in html_blocks[0] and "&lt;" in html_blocks[0]
    show_part(at, "lstm", "edit")  # the same passage: it is chosen above the bar of parts
    kl = next(m.value for m in at.metric if m.label == t("lstm.cf.kl", "en"))
    corpus = at.session_state["corpus"]
    lm = load_pretrained(corpus.key, TrainConfig())  # the shipped LSTM the page inspects by default
    symbols = lm.table.symbols(corpus.vocab.map(tokenize("<b>the</b> cat sat", corpus.settings.tokenizer,
                                                         corpus.settings.lowercase)))
    position, replacement = at.selectbox(key="lstm_cf_pos").value, at.selectbox(key="lstm_cf_new").value
    edited = [*symbols[:position], replacement, *symbols[position + 1:]]
    expected = float(rel_entr(lm.distribution(edited), lm.distribution(symbols)).sum())  # scipy's KL
    assert float(kl) == pytest.approx(expected, abs=5e-5) and expected > 1e-3


def test_the_default_edit_visibly_changes_the_prediction():
    """Opened on a shipped model, the counterfactual section starts from an edit whose next-symbol
    distribution moves (the old default, "writes" → ".", gave KL 0.0000)."""
    at = run_page("lstm", "en", timeout=300, query={"part": "edit"})
    assert not errors(at)
    kl = next(m for m in at.metric if m.label == t("lstm.cf.kl", "en"))
    assert float(kl.value) >= 0.1
    next_probs = next(f for f in _figures(at) if f["layout"]["title"]["text"] == t("lstm.fig.next_title", "en"))
    before, after = (trace_values(trace["x"]) for trace in next_probs["data"][:2])
    assert max(abs(a - b) for a, b in zip(before, after)) > 0.01  # bars the eye can see move


@pytest.mark.parametrize("part, fragment, widget, value, n_charts", [
    ("gates", "lstm_gates", "lstm_units", 10, 1), ("gradient", "lstm_gradient", "lstm_bias", 1.0, 1),
    ("edit", "lstm_edit", "lstm_cf_signal", "h", 3), ("compare", "lstm_compare", "lstm_cmp_split", "valid", 1),
])
def test_a_section_control_reruns_and_resends_its_section_only(part, fragment, widget, value, n_charts):
    at = run_page("lstm", "en", timeout=300, query={"part": part})
    charts_before = len(at.get("plotly_chart"))
    next(w for kind in ("slider", "selectbox", "radio") for w in at.get(kind) if w.key == widget).set_value(value)
    run = run_fragment(at, fragment)
    assert not errors(at)
    assert run.deltas and not run.outside  # every element it sent belongs to the section
    assert len(at.get("plotly_chart")) == n_charts  # exactly the section's own charts were resent
    if widget == "lstm_units":
        heat = json.loads(at.get("plotly_chart")[0].proto.spec)
        assert len(heat["data"][0]["y"]) == 10
    at.run()
    assert not errors(at) and len(at.get("plotly_chart")) == charts_before


@pytest.mark.parametrize("name", SAMPLES)
def test_shipped_models_match_the_built_in_corpora(name):
    """The page finds the shipped LSTM and RNN when the sidebar's default corpus is selected
    (a corpus text or default setting changed → rerun assets/pretrained/make_pretrained.py)."""
    key = load_sample(name).key
    manifest = json.loads((PRETRAINED_DIR / "manifest.json").read_text())
    cells = {row["cell"] for row in manifest if row["corpus"] == name and row["key"] == key}
    assert {"lstm", "rnn"} <= cells
    for cell in cells:
        assert (PRETRAINED_DIR / file_name(key, TrainConfig(cell=cell))).is_file(), (name, cell)


@pytest.mark.browser
def test_stop_button_in_a_browser_ends_training_with_a_usable_model(browser, app_server):
    """Stop ends the queued run at its next step, and its model (stopped early) is the one shown.
    The shared server will do: the run is this browser context's own (its cookie)."""
    url = app_server
    context = browser.new_context(viewport={"width": 1400, "height": 1200}, locale="en-US")
    try:
        page = context.new_page()
        open_page(page, url + "/?corpus=synthetic")
        page.get_by_test_id("stSidebar").get_by_role("link", name=t("nav.lstm", "en")).click()
        wait_for_app(page)
        main = page.get_by_test_id("stMainBlockContainer")
        train_box = main.get_by_test_id("stExpander").filter(has_text=t("lstm.train.header", "en")).first
        if not train_box.get_by_role("button", name=t("lstm.train.button", "en"), exact=True).is_visible():
            train_box.get_by_text(t("lstm.train.header", "en")).click()
        steps = train_box.get_by_role("slider").nth(1)  # hidden size, then steps
        steps.focus()
        for _ in range(3):
            page.keyboard.press("ArrowRight")  # 800 → 3200 steps: far too many to finish here
        wait_for_app(page)
        main.get_by_role("button", name=t("lstm.train.button", "en"), exact=True).click()
        # training has started: its first progress line, "step 40/3200 · ..." (a busy machine may take long for
        # its first step: outcome and not speed is tested). A wait for the text "step 2" waited for step 2000.
        page.get_by_text(re.compile(r"^step \d+/3200 ")).first.wait_for(timeout=300_000)
        main.get_by_role("button", name=t("jobs.stop", "en"), exact=True).click()
        main.get_by_test_id("stCaptionContainer").filter(has_text=t("lstm.stopped", "en").strip(", ")).first.wait_for(
            timeout=60_000)  # the run ends at its next step; the page then shows the stopped model
        wait_for_app(page)
        captions = " ".join(main.get_by_test_id("stCaptionContainer").all_inner_texts())
        assert t("lstm.stopped", "en").strip(", ") in captions  # "stopped early": the stopped model is shown
        assert t("lstm.source.trained", "en") in captions
        assert main.get_by_test_id("stException").count() == 0
    finally:
        context.close()


def test_the_gradient_section_makes_its_neighbours_ahead_and_a_move_to_one_computes_nothing(monkeypatch):
    """server/prefetch.py: the forget-gate bias section hands over its path and figure at the bias ± one
    step; once they are made, a move to one finds both (no path computed, no figure built) and shows
    the exact norms of that bias."""
    import lmcore.training.gradient_path as gradient_path

    real_path = gradient_path.lstm_gradient_path
    at, tasks, calls = opened_with_work_made_ahead(monkeypatch, "lstm", {"part": "gradient"},
                                                   {"paths": (gradient_path, "lstm_gradient_path")})
    assert sorted(key[4] for key, _ in tasks if key[0] == "lstm_gradient") == [-0.5, 0.5]
    at.slider(key="lstm_bias").set_value(0.5)
    run_fragment(at, "lstm_gradient")
    assert not errors(at) and calls == {"paths": [], "figures": []}
    exact_shown = trace_values(_figures(at)[0]["data"][1]["y"])
    at.slider(key="lstm_bias").set_value(4.5)  # a value no other test shows, not made ahead: computed in its run
    run_fragment(at, "lstm_gradient")
    assert not errors(at) and len(calls["paths"]) == 1 and len(calls["figures"]) == 1
    lm, symbols, shift = calls["paths"][0]
    assert shift == 4.5
    assert exact_shown == pytest.approx(real_path(lm, symbols, 0.5).exact_norm, rel=1e-6)  # float32 on the chart
