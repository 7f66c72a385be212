"""Tokens shown in Plotly figures are escaped, so <s>, </s> and uploaded tags display literally."""
from lmcore.figures.labels import plotly_text, plotly_texts


def test_markup_is_escaped_and_plain_text_is_unchanged():
    assert plotly_text("</s>") == "&lt;/s&gt;"
    assert plotly_texts(["<s>", "a&b", "你好"]) == ["&lt;s&gt;", "a&amp;b", "你好"]
    assert plotly_text("<img src=x onerror=alert(1)>") == "&lt;img src=x onerror=alert(1)&gt;"
