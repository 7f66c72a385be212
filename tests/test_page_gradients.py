"""The gradients page in AppTest: both languages, the extreme setting σ1 = 5, T = 1000 says "exploded"
(no exception), the clipping lab's numbers come from its runs and obey the notes' rule, every control
changes the page, each section's controls rerun that section only, and tiny corpora get messages."""
import json

import numpy as np
import pytest

from lmcore.i18n import t
from lmcore.recurrent.clip_lab import DEFAULT, shipped_logs
from lmcore.recurrent.cliff import descend
from lmcore.samples import load_sample
from lmcore.training.config import enough_to_train
from tests.apptest_helpers import (each_part, errors, finish_jobs, opened_with_work_made_ahead, run_page, show_part,
                                   trace_values)
from tests.fragments import elements, page_output, payload_bytes, rerun_each_section, sent_messages


def _figures(at) -> dict[str, dict]:
    """Charts by title (not by position)."""
    specs = [json.loads(el.proto.spec) for el in at.get("plotly_chart")]
    return {spec["layout"]["title"]["text"]: spec for spec in specs}


def _metric(at, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def test_gradients_page_default_and_clipping_lab():
    at = run_page("gradients", "en")
    assert errors(at) == [] and not at.error
    figures = _figures(at)
    assert "Gradient norm vs distance — σ1γ = 1: critical" in figures
    assert _metric(at, "σ1 of W_h (RNN)") == "1.000"  # σ1 × orthogonal: exact
    show_part(at, "gradients", "clipping")
    at.slider(key="cliff_threshold").set_value(5.0)
    at.select_slider(key="cliff_lr").set_value(0.02)
    at.run()
    assert errors(at) == []
    clipped = descend((10.0, -3.0), 0.02, 150, threshold=5.0)
    largest = float(np.linalg.norm(np.diff(clipped.points, axis=0), axis=1).max())
    assert _metric(at, "Largest step, clipped (≤ η·threshold)") == f"{largest:.3g}"
    assert largest <= 0.02 * 5.0 * (1 + 1e-12)
    show_part(at, "gradients", "run")
    logs = shipped_logs(load_sample("english").key, DEFAULT)
    share = float(np.mean(logs["clipped"].grad_norm > DEFAULT.threshold))  # from the logged norms
    assert _metric(at, "Clipped steps") == f"{share:.1%}"
    assert _metric(at, "Final loss, clipped") == f"{np.mean(logs['clipped'].loss[-20:]):.3f}"


@pytest.mark.parametrize("lang,word", [("en", "exploded"), ("zh", "爆炸")])
def test_extreme_setting_shows_exploded_not_an_exception(lang, word):
    at = run_page("gradients", lang, query={"T": "1000", "s1": "5.0"})
    assert errors(at) == [] and not at.error
    assert at.select_slider(key="grad_T").value == 1000 and at.slider(key="grad_scale").value == 5.0
    warnings = " ".join(w.value for w in at.warning)
    assert word in warnings
    curves = _figures(at)[t("gradients.fig.curves_title", lang, sg=5.0, regime=t("gradients.regime.exploding", lang))]
    notes = " ".join(a["text"] for a in curves["layout"].get("annotations", []))
    assert word in notes
    assert "NaN" not in json.dumps(curves) and "Infinity" not in json.dumps(curves)
    show_part(at, "gradients", "why")  # the same settings: its controls are the curves' (kept)
    assert at.select_slider(key="grad_T").value == 1000 and at.slider(key="grad_scale").value == 5.0
    # the per-step panels stop at 200 steps (an SVD per step) and say so
    assert t("gradients.panels.first_steps", lang, n=200, T=1000) in [c.value for c in at.caption]
    jacobian = _figures(at)[t("gradients.fig.jacobian_title", lang)]
    assert trace_values(jacobian["data"][0]["x"]) == list(range(1, 201))


def test_relu_note_and_title_say_what_they_show():
    at = run_page("gradients", "en", query={"T": "1000", "s1": "5.0", "act": "relu"})
    assert errors(at) == [] and not at.error
    warnings = " ".join(w.value for w in at.warning)
    assert "RNN: the gradient norm exploded" in warnings
    notes = " ".join(m.value for m in at.markdown)
    assert t("gradients.slope_note.relu", "en") in notes and "with tanh" not in notes.lower()
    title = next(title for title in _figures(at) if title.startswith("Gradient norm vs distance"))
    assert title == "Gradient norm vs distance — σ1γ = 5: exploding"


CONTROLS = {  # part (tab) → its controls
    "curves": [("multiselect", "grad_cells", ["rnn", "gru"]), ("select_slider", "grad_T", 50),
               ("select_slider", "grad_hidden", 16), ("radio", "grad_kind", "gaussian"), ("slider", "grad_scale", 1.5),
               ("selectbox", "grad_act", "sigmoid"), ("slider", "grad_input", 2.0), ("slider", "grad_seeds", 1),
               ("slider", "grad_d", 5)],
    "why": [("select_slider", "grad_T", 100), ("slider", "grad_scale", 0.5), ("selectbox", "grad_act", "tanh"),
            ("slider", "grad_fb", 3.0)],  # the forget bias acts on the LSTM panel (the curves above show no LSTM)
    "connectivity": [("slider", "grad_sentence", 1), ("slider", "grad_position", 3)],
    "clipping": [("slider", "cliff_threshold", 5.0), ("select_slider", "cliff_lr", 0.02), ("slider", "cliff_w", 8.0),
                 ("slider", "cliff_b", -5.0)],
    "run": [("select_slider", "run_threshold", 0.5), ("select_slider", "run_lr", 2.0)],
}


def test_every_control_changes_the_page():
    at = run_page("gradients", "en", query={"corpus": "synthetic"})
    at.session_state["grad_formula_open"] = True  # the distance's slider is in the formula's expander, drawn when open
    at.run()
    for part, kind, key, value in [(part, *c) for part, controls in CONTROLS.items() for c in controls]:
        show_part(at, "gradients", part)
        before = page_output(at)
        getattr(at, kind)(key=key).set_value(value)
        at.run()
        assert errors(at) == [], key
        assert page_output(at) != before, key


SECTIONS = {  # a control of each fragment → its part (tab), the new value and the charts that fragment draws
    "grad_T": ("curves", 50, 1), "grad_scale": ("why", 1.5, 4), "grad_position": ("connectivity", 2, 1),
    "cliff_threshold": ("clipping", 5.0, 1), "run_threshold": ("run", 0.5, 2),
}


def test_each_section_reruns_alone():
    at = run_page("home", "en", query={"corpus": "synthetic"})
    at.switch_page("app_pages/gradients.py")
    with sent_messages() as full:
        at.run()
    assert len(elements(full, "plotly_chart")) == 1  # the first part's (tab's) chart only

    def move(at, key, value):
        (at.select_slider if key in ("grad_T", "run_threshold") else at.slider)(key=key).set_value(value)

    for key, (_, whole, sent) in rerun_each_section(at, "gradients", SECTIONS, move).items():
        assert len(elements(sent, "plotly_chart")) == SECTIONS[key][2], key
        assert payload_bytes(sent) < payload_bytes(whole), key


def test_the_formula_expander_runs_only_when_open():
    """Closed (as it opens), the product-and-bound expander sends nothing a move of the scale would redraw:
    no formula, no distance slider, no note; opened, it shows the note for the distance picked."""
    at = run_page("gradients", "en", query={"corpus": "synthetic"})
    with sent_messages() as sent:
        at.slider(key="grad_scale").set_value(1.5).run()
    assert "grad_d" not in {s.key for s in at.slider} and errors(at) == []
    assert elements(sent, "latex") == []  # no formula sent
    at.session_state["grad_formula_open"] = True
    at.run()
    at.slider(key="grad_d").set_value(5).run()
    assert errors(at) == [] and [m.value for m in at.markdown if "distance T − k = 5:" in m.value]


TINY_UPLOADS = [
    " ".join(f"Sentence number {i} is short." for i in range(10)),  # no sentence of 8-40 tokens
    "word " * 30 + ". And again.",  # too little text to train on
    " ".join(f"Short sentence {i} here." for i in range(40)) + " " + "long " * 12 + "end.",  # one long sentence
]


@pytest.mark.parametrize("text", TINY_UPLOADS)
def test_tiny_uploads_give_messages_not_widget_errors(text):
    at = run_page("home", "en")
    at.sidebar.get("file_uploader")[0].set_value(("tiny.txt", text.encode(), "text/plain"))
    at.run()
    at.switch_page("app_pages/gradients.py").run()
    for _ in each_part(at, "gradients"):  # the parts that need models ask for their background runs
        assert errors(at) == []
    finish_jobs(at)  # the background runs an upload needs (the page itself trains nothing)
    assert errors(at) == []
    corpus = at.session_state["corpus"]
    candidates = [s for s in corpus.mapped("train") if 8 <= len(s) <= 40]
    seen = {name: (len(_figures(at)), [i.value for i in at.info], [c.value for c in at.caption],
                   [w.value for w in at.warning], [s.key for s in at.slider]) for name in each_part(at, "gradients")}
    assert errors(at) == []
    infos, captions = seen["connectivity"][1], seen["connectivity"][2]
    if not enough_to_train(corpus.mapped("train")):
        assert t("gradients.too_small", "en") in seen["run"][3]
    if not candidates:
        assert t("gradients.conn.too_short", "en", lo=8, hi=40) in infos
    elif enough_to_train(corpus.mapped("train")):
        assert sum(n for n, *_ in seen.values()) == 9  # every part, connectivity included, once the runs are done
        if len(candidates) == 1:
            assert t("gradients.conn.one_sentence", "en") in captions
            assert "grad_sentence" not in seen["connectivity"][4]


def test_a_move_of_the_scale_finds_its_curves_made_ahead(monkeypatch):
    """server/prefetch.py: the curves hand over the scales one step away; once made, a move to one
    computes no curve and builds no figure, and shows that scale."""
    import lmcore.recurrent.gradient_flow as gradient_flow
    from tests.apptest_fragments import run_fragment

    at, tasks, calls = opened_with_work_made_ahead(monkeypatch, "gradients", {"part": "curves", "s1": "2.35"}, {
        "curves": (gradient_flow, "curves_over_seeds")})  # no other test shows the scale 2.35 or 2.4
    assert sorted(key[2].scale for key, _ in tasks if key[0] == "grad_curves") == [2.3, 2.4]
    at.slider(key="grad_scale").set_value(2.4)
    run_fragment(at, "grad_curves")
    assert not errors(at) and calls == {"curves": [], "figures": []}
    assert at.metric[0].value == "2.400"  # σ1 of the orthogonal W_h scaled by 2.4
    at.run()  # (a nested fragment: its slider is set again after a whole run)
    at.slider(key="grad_scale").set_value(2.6)  # not made ahead: computed in its run
    run_fragment(at, "grad_curves")
    assert not errors(at) and calls["curves"] and len(calls["figures"]) == 1
