"""Write assets/plotly/streamlit_light.json: the Plotly template Streamlit's light theme gives a chart,
as its frontend resolves it in the browser (theme colours and fonts in place of the placeholders of
Streamlit's Python-side "streamlit" template).

    python assets/plotly/make_streamlit_theme.py      # needs Chromium at /usr/bin/chromium

The app draws its charts with ``theme=None`` and this template written into each figure
(ui/charts.py, lmcore/figures/template.py), so they look as Streamlit's theme makes them. Run again
after upgrading Streamlit. One change to what the browser shows: Streamlit bolds a figure's title by
wrapping its text in ``<b>``; here the title font's weight says it, so the text stays the figure's.
"""
from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "bench"))
from latency_browser import launch  # noqa: E402
from streamlit_process import streamlit_process  # noqa: E402

APP = """
import plotly.graph_objects as go
import streamlit as st
st.plotly_chart(go.Figure(go.Bar(y=[1, 2]), layout=dict(title="t")))
"""
READ = """() => { const gd = document.querySelector('.js-plotly-plot');
                  const t = gd && gd.layout && gd.layout.template;
                  return t && !JSON.stringify(t).includes('"#0000') ? t : null; }"""


def resolved_template() -> dict:
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        (Path(tmp) / "app.py").write_text(APP)
        with streamlit_process(Path(tmp)) as (url, _):
            browser = launch(p)
            page = browser.new_page()
            page.goto(url)
            deadline = time.monotonic() + 60
            while (template := page.evaluate(READ)) is None:
                if time.monotonic() > deadline:
                    raise RuntimeError("no themed chart within 60 s")
                time.sleep(0.2)
            browser.close()
    return template


def main() -> None:
    template = resolved_template()
    template["layout"]["title"]["font"]["weight"] = 700  # Streamlit's <b>…</b> around the title text
    out = HERE / "streamlit_light.json"
    out.write_text(json.dumps(template, indent=1, sort_keys=True) + "\n")
    print(f"{out}: {out.stat().st_size} bytes, trace types {sorted(template['data'])}")


if __name__ == "__main__":
    main()
