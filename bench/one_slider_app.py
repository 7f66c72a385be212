"""One slider, one Plotly chart it redraws: the A/B test app of bench/chart_ab.py.

    streamlit run bench/one_slider_app.py     then open /?chart=plotly or /?chart=element

``?chart=plotly`` shows the chart with ``st.plotly_chart`` (as ui/charts.py did before issue 39),
``?chart=element`` with ui/plotly_element.py. Both get the same spec (ui/charts.py's ``spec``: the
theme written in, a content datarevision): four methods' probabilities of ten words, as the n-gram
page's next-word chart, changing with the slider; and under it a chart the slider does not change
(a section's other chart, sent again by every run).
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import plotly.io
import streamlit as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from ui import charts, plotly_element  # noqa: E402


def figure(k: int) -> go.Figure:
    """Four methods' probabilities of ten words; ``k`` shifts them."""
    words = [f"word{i}" for i in range(10)]
    fig = go.Figure(layout=dict(title=f"Next word, k = {k}", barmode="group", height=390))
    for method in range(4):
        fig.add_bar(name=f"method {method}", orientation="h", y=words,
                    x=np.round(1 / (np.arange(10) + method + 2 + 0.3 * k), 4))
    return fig


def show(fig: go.Figure) -> None:
    shown = charts.spec(fig)
    if st.query_params.get("chart", "plotly") == "element":
        plotly_element.show(plotly.io.to_json(shown, validate=False).encode())
    else:
        st.plotly_chart(charts._Spec(shown), theme=None, width="stretch")


k = st.slider("k", 0, 40, 10, key="k")
show(figure(k))
show(go.Figure(go.Scatter(y=[3, 1, 2]), layout=dict(title="Unchanged", height=250)))
