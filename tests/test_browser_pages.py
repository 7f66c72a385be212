"""Uploads never block a page (issue 11), end to end in Chromium: the LSTM page of an uploaded text
shows its cheap parts and a placeholder for its model section at once, while the default model
trains on the server's scheduler; the placeholder fills in when the run ends. The page is in parts
(ui/sections.py): a part's charts are drawn when it is opened."""
from __future__ import annotations

import pytest

from lmcore.i18n import t
from tests.browser_server import open_page, part_button, ROOT, screenshot, wait_for_app

pytestmark = pytest.mark.browser


def _lesson(n_lines: int = 150) -> str:
    """A short English text (lines of the built-in sample): its default LSTM trains in seconds."""
    lines = [ln for ln in (ROOT / "assets" / "corpora" / "english" / "part03.txt").read_text(encoding="utf-8")
             .splitlines() if ln.strip()]
    return "\n".join(lines[:n_lines]) + "\n"


def test_an_uploaded_text_shows_placeholders_then_the_finished_model_sections(browser, app_server, tmp_path):
    """On the shared server (it has had its first request): the upload and its runs are this browser
    context's own; a run that queues behind another only waits longer behind the same placeholder."""
    path = tmp_path / "lesson.txt"
    path.write_text(_lesson(), encoding="utf-8")
    waiting = t("jobs.waiting_model", "en")
    url = app_server
    context = browser.new_context(viewport={"width": 1400, "height": 1200}, locale="en-US")
    try:
        page = context.new_page()
        open_page(page, url + "/lstm-gates?lang=en")
        main = page.get_by_test_id("stMainBlockContainer")
        assert main.get_by_text(waiting).count() == 0  # the shipped model: nothing to wait for
        page.get_by_test_id("stSidebar").locator("input[type='file']").set_input_files(str(path))
        main.get_by_text(waiting).first.wait_for(timeout=120_000)
        screenshot(page, "lstm-upload-placeholders")
        assert main.get_by_text(waiting).count() == 1  # the open part (gates) waits for the model
        part_button(main, t("parts.lstm.compare", "en")).click()
        main.get_by_test_id("lmlabMarkup").locator("table").first.wait_for(timeout=120_000)  # the n-gram rows are there already
        part_button(main, t("parts.lstm.gates", "en")).click()
        main.get_by_role("heading", name=t("lstm.gates.header", "en")).wait_for(timeout=120_000)
        main.get_by_text(waiting).first.wait_for(state="detached", timeout=900_000)  # the run ended
        wait_for_app(page)
        screenshot(page, "lstm-upload-filled")
        assert main.get_by_text(waiting).count() == 0
        assert main.get_by_test_id("stPlotlyChart").count() == 2  # the training curve and the gates' heatmap
        captions = " ".join(main.get_by_test_id("stCaptionContainer").all_inner_texts())
        assert t("lstm.source.trained", "en") in captions  # the model trained on the upload, not a shipped one
        part_button(main, t("parts.lstm.edit", "en")).click()
        main.get_by_role("heading", name=t("lstm.cf.header", "en")).wait_for(timeout=120_000)
        wait_for_app(page)
        assert main.get_by_test_id("stPlotlyChart").count() == 1 + 3  # the curve and the edit's charts, drawn on opening
        assert main.get_by_test_id("stException").count() == 0
    finally:
        context.close()
