"""Projector styling and slide-size exports: every text of a figure ≥ 16 px in projector view, PNG and
SVG files of exactly the asked size (kaleido + Chromium), file names that say what they are."""
from __future__ import annotations

import html
import re
import struct

import numpy as np
import plotly.graph_objects as go
import pytest

from lmcore.figures.gradients import gradient_curves_figure
from lmcore.figures.ngram import next_word_figure, perplexity_heatmap
from lmcore.recurrent.gradient_flow import curves_over_seeds
from lmcore.recurrent.weights import CellSpec
from lmcore.teaching.export import chromium_path, export_name, figure_image
from lmcore.teaching.projector import projector_figure


def figures() -> list[go.Figure]:
    band = {"rnn": curves_over_seeds(CellSpec("rnn", 8, 8), 30, 1.0, [0])}
    fig = next_word_figure(["the", "</s>", "a"], {"mle": np.array([0.5, 0.2, 0.1]), "add-delta": np.array([0.3, 0.2, 0.1])})
    fig.add_annotation(text="note", x=0, y=0.5, font=dict(size=9))
    return [fig, gradient_curves_figure(band, 1.0, 1.0),
            perplexity_heatmap([1, 2], ["mle", "add-delta"], np.array([[100.0, 90.0], [np.inf, 80.0]]))]


def font_sizes(fig: go.Figure) -> dict[str, float]:
    """Every font size the figure will use, defaults (None) resolved to layout.font.size."""
    full = fig.layout
    base = full.font.size or 12
    sizes = {"title": full.title.font.size or base * 1.4, "legend": full.legend.font.size or base,
             "hover": full.hoverlabel.font.size or 13}
    for name in dir(full):
        if re.match(r"[xy]axis\d*$", name) and full[name] is not None:
            ax = full[name]
            sizes[f"{name}.tick"] = ax.tickfont.size or base
            sizes[f"{name}.title"] = ax.title.font.size or base
    for i, ann in enumerate(full.annotations):
        sizes[f"annotation{i}"] = ann.font.size or base
    for i, trace in enumerate(fig.data):
        if "textfont" in trace and getattr(trace, "text", None) is not None:
            sizes[f"trace{i}.text"] = trace.textfont.size or base
    return sizes


@pytest.mark.parametrize("index", range(3))
def test_projector_figure_makes_every_text_at_least_16px(index):
    fig = figures()[index]
    assert min(font_sizes(fig).values()) < 16  # the page's own figure is small text
    styled = projector_figure(fig)
    assert min(font_sizes(styled).values()) >= 16
    assert styled.layout.title.font.size >= 24 and styled.layout.height >= 460
    assert fig.layout.title.font.size is None  # the original is not changed
    big = projector_figure(fig, scale=1.5)
    assert min(font_sizes(big).values()) >= 24


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


@pytest.mark.skipif(chromium_path() is None, reason="figure export needs Chromium")
@pytest.mark.parametrize("width, height", [(1920, 1080), (1280, 720)])
def test_png_and_svg_have_the_asked_size(width, height):
    fig = figures()[0]
    assert png_size(figure_image(fig, "png", width, height)) == (width, height)
    svg = figure_image(fig, "svg", width, height).decode("utf-8")
    assert svg.lstrip().startswith("<svg")
    assert re.search(rf'width="{width}"', svg) and re.search(rf'height="{height}"', svg)
    import xml.etree.ElementTree as ET

    root = ET.fromstring(svg)
    assert root.get("width") == str(width) and root.get("height") == str(height)
    sizes = [float(s) for s in re.findall(r"font-size:\s*([\d.]+)px", svg)]
    assert sizes and min(sizes) >= 16 * height / 720 - 0.5  # projector fonts scaled to the slide
    texts = [html.unescape(t) for t in re.findall(r"<text[^>]*>([^<]*)</text>", svg)]
    assert "</s>" in texts and "next word w" in texts  # the token is text, not markup


def test_file_names_say_what_they_are():
    name = export_name("ngram", "next-words", "English sample", {"n": 3, "delta": 1.0, "d": 0.75}, "png", (1920, 1080))
    assert name == "ngram_next-words_English-sample_n3-delta1.0-d0.75_1920x1080.png"
    assert export_name("gradients", "curves", "我的/语料 <1>.txt", {}, "svg") == "gradients_curves_我的-语料-1-.txt.svg"
