"""Tokens shown in Plotly figures are escaped, so <s>, </s> and uploaded tags display literally."""
from lmcore.figures.labels import plotly_text, plotly_texts


def test_markup_is_escaped_and_plain_text_is_unchanged():
    assert plotly_text("</s>") == "&lt;/s&gt;"
    assert plotly_texts(["<s>", "a&b", "你好"]) == ["&lt;s&gt;", "a&amp;b", "你好"]
    assert plotly_text("<img src=x onerror=alert(1)>") == "&lt;img src=x onerror=alert(1)&gt;"


def test_every_figure_module_escapes_through_plotly_text():
    """One escaping rule for Plotly labels: no figure module calls html.escape for them itself
    (quote=True would show a quote token as &quot;). HTML for st.markdown is another matter."""
    from pathlib import Path

    figures = Path(__file__).resolve().parents[1] / "lmcore" / "figures"
    for path in figures.glob("*.py"):
        if path.name in ("labels.py", "lstm.py"):
            continue
        assert "html.escape" not in path.read_text(encoding="utf-8"), path.name


def test_lstm_tick_labels_show_a_quote_token_as_a_quote():
    from lmcore.figures.lstm import _labels

    assert _labels(['"', "<s>", " "]) == ['"', "&lt;s&gt;", "␣"]
