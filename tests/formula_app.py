"""A test app (tests/test_formula_element.py): each formula drawn by st.latex and by ui/formula_element.py,
side by side in keyed containers, then a formula KaTeX cannot parse, one with markup in its text, and
one a radio switches between the first two formulas (drawn again from the element's memory)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import streamlit as st  # noqa: E402

from ui.formula_element import formula  # noqa: E402

FORMULAS = [
    r"P(y \mid x) = \prod_{t=1}^{T} P(y_t \mid y_{<t}, x), \qquad c = h^{(m)}_\text{enc}",
    r"= \underbrace{0.281}_{P(\text{the} \mid \langle s \rangle)} \times \underbrace{0.0273}_{P(\text{cat} \mid \ldots)}"
    r" = 8.18 \times 10^{-17}",
    r"\hat{g} \leftarrow \begin{cases} \dfrac{\text{threshold}}{\|\hat{g}\|}\,\hat{g} & \text{if } \|\hat{g}\| \ge 5 \\"
    r" \hat{g} & \text{otherwise} \end{cases}",
    r"\text{注意力} \quad \alpha_{tj} = \text{softmax}_j\, e(s^{(t-1)}, h_j), \quad c_t = \sum_j \alpha_{tj} h_j",
]
BROKEN = r"\frac{1}{"
HOSTILE = r"\text{<img src=x onerror=alert(1)> <b>bold</b>}"

if __name__ == "__main__":  # as `streamlit run` runs it (the test imports FORMULAS alone)
    for i, tex in enumerate(FORMULAS):
        with st.container(key=f"latex_{i}"):
            st.latex(tex)
        with st.container(key=f"formula_{i}"):
            formula(tex)
    with st.container(key="broken"):
        formula(BROKEN)
    with st.container(key="hostile"):
        formula(HOSTILE)
    which = st.radio("formula", [0, 1], key="switch", horizontal=True)
    with st.container(key="switching"):
        formula(FORMULAS[which])
