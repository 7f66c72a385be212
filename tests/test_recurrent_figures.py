"""The gradients and RNN figures: both languages, markers for inf/NaN/0, no non-finite numbers
sent to Plotly, token labels escaped, the truncation staircase where it belongs."""
import json
import re

import numpy as np
import pytest
import torch

from lmcore.figures.gradients import (
    cliff_figure, connectivity_figure, eigenvalue_figure, forget_gate_figure, gradient_curves_figure,
    per_step_figure, training_loss_figure, training_norm_figure,
)
from lmcore.figures.style import HIGHLIGHT
from lmcore.figures.rnn import bptt_heatmap, hidden_state_heatmap, step_loss_figure, truncation_error_figure
from lmcore.recurrent.cliff import descend, loss_surface
from lmcore.recurrent.clip_run import TrainingLog
from lmcore.recurrent.gradient_flow import curves_over_seeds
from lmcore.recurrent.weights import CellSpec
from lmcore.i18n import t
from ui.charts import spec_json

torch.set_num_threads(1)


def _finite_json(fig) -> dict:
    text = fig.to_json()
    assert "NaN" not in text and "Infinity" not in text
    return json.loads(text)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_extreme_curves_mark_explosion(lang):
    bands = {c: curves_over_seeds(CellSpec(c, 16, 4, "orthogonal", 5.0, "relu"), 1000, 1.0, [0, 1])
             for c in ("rnn",)}
    assert bands["rnn"].exploded_at is not None
    fig = gradient_curves_figure(bands, 5.0, 1.0, lang)
    spec = _finite_json(fig)
    notes = " ".join(a["text"] for a in spec["layout"]["annotations"])
    word = "exploded" if lang == "en" else "爆炸"
    assert f"{bands['rnn'].exploded_at}" in notes and word in notes
    assert spec["layout"]["yaxis"]["type"] == "log"
    assert spec["layout"]["title"]["text"] and spec["layout"]["xaxis"]["title"]["text"]


def test_vanishing_curves_mark_underflow_and_lstm_cell_path():
    bands = {"rnn": curves_over_seeds(CellSpec("rnn", 16, 4, "orthogonal", 0.5, "sigmoid"), 600, 1.0, [0]),
             "lstm": curves_over_seeds(CellSpec("lstm", 16, 4), 600, 1.0, [0])}
    spec = _finite_json(gradient_curves_figure(bands, 0.5, 0.25))
    assert any("0" in a["text"] and "underflow" in a["text"] for a in spec["layout"]["annotations"])
    names = [d.get("name") or "" for d in spec["data"]]
    assert any("∂c(k)" in n for n in names) and any("(σ1γ)" in n for n in names)


def test_connectivity_escapes_tokens_and_normalises_rows():
    fig = connectivity_figure(["</s>", "a", "<unk>", "b"], {"rnn": np.array([1e-3, 1e-1, 1.0])}, "<b>")
    spec = _finite_json(fig)
    assert spec["data"][0]["text"][0] == ["&lt;/s&gt;", "a", "&lt;unk&gt;", "b"]  # in the hover
    assert "texttemplate" not in spec["data"][0]  # not in the cells: Plotly shrank them there (6 px at 1280×720)
    axis = spec["layout"]["xaxis"]
    assert axis["ticktext"] == ["&lt;/s&gt;", "a", "&lt;unk&gt;", "b"] and axis["tickvals"] == spec["data"][0]["x"] == [1, 2, 3, 4]
    assert spec["data"][0]["z"][0][:3] == pytest.approx([-3.0, -1.0, 0.0])
    assert "&lt;b&gt;" in spec["layout"]["title"]["text"]


def test_bptt_heatmap_staircase_separates_dropped_cells():
    norms = np.tril(np.ones((5, 5)))
    norms[norms == 0] = np.nan
    fig = bptt_heatmap(norms, list("abcde"), window=2)
    line = fig.data[1]
    # every vertical segment sits at k = t − window + 0.5: cells left of it have t − k ≥ window
    for x0, x1, y0, y1 in zip(line.x[1::3], line.x[2::3], line.y[1::3], line.y[2::3]):
        t = (y0 + y1) / 2
        assert x0 == x1
        assert t - (x0 - 0.5) >= 2 > t - (x0 + 0.5)  # left cell dropped, right cell kept
    assert len(bptt_heatmap(norms, list("abcde"), window=5).data) == 1  # nothing dropped: no line


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_other_figures_build(lang):
    rng = np.random.default_rng(0)
    figs = [
        eigenvalue_figure(np.array([0.5 + 0.5j, 0.5 - 0.5j, -0.9]), 1.2, lang),
        per_step_figure(np.array([0.5, 0.4, 0.3]), 1.0, "deriv", lang),
        per_step_figure(np.array([0.9, np.inf, 0.3]), 1.0, "jacobian", lang),
        forget_gate_figure({"exact": np.ones(4), "forget": np.ones(4), "relative_error": np.zeros(4)}, lang),
        cliff_figure(loss_surface((0.0, 12.0), (-8.0, 2.0), 30),
                     {"plain": descend((10.0, -6.0), 0.05, 20), "clipped": descend((10.0, -6.0), 0.05, 20, 1.0)}, lang),
        hidden_state_heatmap(rng.normal(size=(6, 4)), ["</s>", "a", "b", "a", "c", "d"], 2, lang),
        step_loss_figure(np.array([1.0, 2.0, 3.0]), ["a", "a", "</s>"], 1, lang),
        truncation_error_figure(np.array([0.5, 0.1, 0.0]), 2, lang),
    ]
    logs = {"unclipped": TrainingLog(np.array([3.0, np.nan]), np.array([5.0, np.nan]), np.array([False, False]), None, 1),
            "clipped": TrainingLog(np.array([3.0, 2.0]), np.array([5.0, 0.5]), np.array([True, False]), 1.0, None)}
    figs += [training_norm_figure(logs, 1.0, lang), training_loss_figure(logs, lang)]
    for fig in figs:
        spec = _finite_json(fig)
        assert spec["layout"]["title"]["text"]
        assert spec["layout"]["xaxis"]["title"]["text"]
    heat = _finite_json(figs[5])
    assert heat["layout"]["xaxis"]["ticktext"][0] == "&lt;/s&gt;" and len(heat["data"][0]["x"]) == 6


def test_forward_animation_has_one_frame_per_step_revealing_h():
    from lmcore.figures.rnn import forward_animation

    h = np.arange(12, dtype=float).reshape(4, 3) / 12
    top = [[("<unk>", 0.5), ("a", 0.3)], [("a", 0.6), ("b", 0.2)], [("b", 0.9), ("a", 0.1)], [("</s>", 0.7), ("a", 0.2)]]
    fig = forward_animation(h, ["</s>", "a", "b", "a"], top, ["a", "b", "a", "</s>"], lang="zh")
    sent = spec_json(fig).decode()  # as the chart element gets it: a step not shown yet is null, never NaN
    assert "NaN" not in sent and "Infinity" not in sent
    spec = json.loads(sent)
    assert [f["name"] for f in spec["frames"]] == ["1", "2", "3", "4"]
    z3 = spec["frames"][2]["data"][0]["z"]
    assert all(row[:3] == pytest.approx(list(h[:3, i])) and row[3] is None for i, row in enumerate(z3))
    bars = spec["frames"][0]["data"][1]
    assert bars["text"] == ["a", "&lt;unk&gt;"]  # most probable on top (reversed), escaped
    assert bars["marker"]["color"] == ["#d62728", "#1f77b4"]  # the true next word "a" is red
    # a frame carries what changes only: the heatmap keeps its colour bar (and, on a phone, its place)
    assert set(spec["frames"][2]["data"][0]) == {"type", "z"} and "colorbar" in spec["data"][0]


def test_forward_animation_on_a_phone_stacks_its_two_plots():
    """layout.meta.lmNarrow (ui/plotly_element.js merges it in below ``below`` px): h(t) above the
    bars, each across the width, the two subplot titles over their own plots, the colour bar beside h(t)."""
    from lmcore.figures.rnn import forward_animation

    top = [[("a", 0.6), ("b", 0.2)]] * 3
    fig = forward_animation(np.zeros((3, 2)), ["<s>", "a", "b"], top, ["a", "b", "</s>"], lang="en")
    narrow = _finite_json(fig)["layout"]["meta"]["lmNarrow"]
    assert 300 < narrow["below"] <= 700
    layout = narrow["layout"]
    heat, bars = layout["yaxis"]["domain"], layout["yaxis2"]["domain"]
    assert bars[1] < heat[0]  # stacked, with room between them for h(t)'s step axis
    assert layout["xaxis2"]["domain"] == [0, 1] and layout["xaxis"]["domain"][1] >= 0.8
    titles = layout["annotations"]
    assert len(titles) == len(fig.layout.annotations) == 2 and [a["y"] for a in titles] == [heat[1], bars[1]]
    assert titles[0]["text"] == "Hidden state h(t) over time<br>(units × steps)"
    colorbar = narrow["data"][0]["colorbar"]
    assert colorbar["x"] > layout["xaxis"]["domain"][1] and heat[0] < colorbar["y"] < heat[1]


def test_log_axis_stays_below_float64_overflow():
    bands = {"rnn": curves_over_seeds(CellSpec("rnn", 8, 4, "orthogonal", 5.0, "identity"), 600, 1.0, [0])}
    spec = _finite_json(gradient_curves_figure(bands, 5.0, 1.0))
    low, high = spec["layout"]["yaxis"]["range"]
    assert high <= 305 and low < 0.5  # 5^k reaches 1e308: the axis stops short of "Infinity"


def _path_points(path: str) -> np.ndarray:
    """The vertices of an SVG path of M, L, H, V commands (absolute), in order."""
    points, x, y = [], 0.0, 0.0
    for command, args in re.findall(r"([MLHVZ])([^MLHVZ]*)", path):
        numbers = [float(v) for v in re.findall(r"-?[\d.]+(?:e-?\d+)?", args)]
        if command in "ML":
            x, y = numbers
        elif command == "H":
            x = numbers[0]
        elif command == "V":
            y = numbers[0]
        else:
            continue
        points.append((x, y))
    return np.array(points)


def test_cliff_paths_are_shapes_through_every_step_inside_the_window():
    """Each path is a line through its steps and a square mark at each, both shapes that a move
    redraws alone; the steps are descend's own, cut where the path leaves the plotted window."""
    surface = loss_surface((0.0, 12.0), (-8.0, 2.0), 30)
    paths = {"plain": descend((10.0, -6.0), 0.05, 40), "clipped": descend((10.0, -6.0), 0.05, 40, 1.0)}
    spec = _finite_json(cliff_figure(surface, paths))
    shapes = spec["layout"]["shapes"]
    assert len(shapes) == 4 and {s["name"] for s in shapes} == {HIGHLIGHT}
    assert [t["name"] for t in spec["data"][1:]] == [t("gradients.fig.path_plain", "en"), t("gradients.fig.path_clipped", "en")]
    assert all(trace["x"] == [None] for trace in spec["data"][1:])  # a legend entry only
    for (name, path), line, marks in zip(paths.items(), shapes[0::2], shapes[1::2]):
        points = path.points
        out = np.flatnonzero((points[:, 0] < 0) | (points[:, 0] > 12) | (points[:, 1] < -8) | (points[:, 1] > 2))
        inside = points[: out[0] + 1] if out.size else points
        inside = np.column_stack([np.clip(inside[:, 0], 0, 12), np.clip(inside[:, 1], -8, 2)])
        assert _path_points(line["path"]) == pytest.approx(inside, rel=1e-4, abs=1e-4), name
        corners = _path_points(marks["path"]).reshape(-1, 4, 2)
        assert corners.mean(axis=1) == pytest.approx(inside, rel=1e-4, abs=1e-4), name  # a mark centred on each step
        sides = corners.max(axis=1) - corners.min(axis=1)
        assert np.all(sides > 0) and np.all(np.ptp(sides, axis=0) <= 0.02 * sides.mean(axis=0)), name  # one size (5 digits)
