"""A test app (tests/test_markup_element.py): a table of hostile words drawn by ui/tables.py, the LSTM
page's coloured passage of them, and a table whose rows a radio changes (written again into the same
element)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import streamlit as st  # noqa: E402

from lmcore.figures.lstm import activation_html  # noqa: E402
from tests.test_tables import HOSTILE  # noqa: E402
from ui.markup_element import show_markup  # noqa: E402
from ui.tables import text_table  # noqa: E402

if __name__ == "__main__":  # as `streamlit run` runs it
    with st.container(key="hostile"):
        text_table(pd.DataFrame({"<th>word": HOSTILE, "n": range(len(HOSTILE))}))
    with st.container(key="passage"):
        show_markup(activation_html(HOSTILE, np.linspace(-1.0, 1.0, len(HOSTILE))))
    rows = st.radio("rows", [2, 5], key="rows", horizontal=True)
    with st.container(key="changing"):
        text_table(pd.DataFrame({"word": [f"w{i}" for i in range(rows)], "count": range(rows)}))
