"""Every control acts: on the corpus, chain-rule, n-gram and decoding pages, moving any control
changes what the page shows, or the page says why it cannot (a notice), in both languages.

Each page's script lists the moves; a control on the page that no move touches fails the test,
so a new control comes with its move."""
from __future__ import annotations

import pytest

from lmcore.i18n import catalogue, t
from tests.apptest_helpers import each_part, errors, run_page, show_part
from ui.navigation import PARTS

WIDGETS = ("slider", "select_slider", "selectbox", "radio", "text_input", "checkbox", "multiselect",
           "number_input", "toggle", "text_area", "button")
SHOWN = {"title", "header", "subheader", "markdown", "caption", "latex", "text", "info", "warning", "error",
         "success", "metric", "dataframe", "plotly_chart", "code", "json", "table", "html"}


def _walk(node):
    for child in getattr(node, "children", {}).values():
        yield child
        yield from _walk(child)


def shown(at) -> list[str]:
    """What the page shows a student, in order (widgets and download buttons left out)."""
    out = []
    for el in _walk(at.main):
        kind = getattr(el, "type", None)
        if kind not in SHOWN:
            continue
        if kind == "dataframe":
            out.append("table:" + el.value.to_csv())
        elif kind == "html":
            out.append("html:" + el.proto.body)
        elif kind == "plotly_chart":
            out.append("chart:" + el.proto.spec)
        elif kind == "metric":
            out.append(f"metric:{el.label}={el.value}")
        else:
            out.append(f"{kind}:{el.value}")
    return out


TEACHING = ("lmlab-", "FormSubmitter:lmlab-")
"""Keys of the shared teaching widgets (ui/teaching.py: quizzes, slides), tested with that module."""


def controls(at) -> set[str]:
    """Keys of the enabled controls of the page itself in its main area (teaching widgets aside)."""
    return {w.key for kind in WIDGETS for w in at.main.get(kind)
            if not getattr(w, "disabled", False) and not str(w.key).startswith(TEACHING)}


def _widget(at, key, page: str | None = None):
    """The control ``key``; on a page in parts (tabs), the part holding it is opened first."""
    for part in (None, *PARTS.get(page, ())):
        if part is not None:
            show_part(at, page, part)
        for kind in WIDGETS:
            for w in at.main.get(kind):
                if w.key == key:
                    return w
    raise AssertionError(f"no control {key!r} on the page")


def play(page: str, lang: str, query: dict, moves: list[tuple], opened: tuple[str, ...] = ()) -> set[str]:
    """Run ``moves`` = (key, value or callable(widget) -> value, notice or None) in order; return
    the keys of the controls that were enabled and moved. ``opened``: keys of lazy expanders opened
    first (their controls are drawn only when open).

    The page's output must change, or the notice (a function of the language giving its first
    words) must be shown, saying why it did not. A disabled control must carry a help text
    saying why."""
    at = run_page(page, lang, query=query)
    for key in opened:
        at.session_state[key] = True
    if opened:
        at.run()
    assert errors(at) == []
    seen, moved = controls(at), set()
    for _ in each_part(at, page) if page in PARTS else ():  # every part's controls must be moved
        seen |= controls(at)
    if page in PARTS:  # back on the first part (the last one, the questions, may not show a setting's effect)
        show_part(at, page, PARTS[page][0])
    for key, value, notice in moves:
        widget = _widget(at, key, page)
        if getattr(widget, "disabled", False):  # a control that cannot act must say why
            assert widget.help, f"{key} is disabled without saying why"
            continue
        before, old = shown(at), widget.value
        moved.add(key)
        value = value(widget) if callable(value) else value
        widget.set_value(value).run()
        assert errors(at) == [], (key, value)
        after = shown(at)
        if after == before:
            assert notice is not None, f"moving {key} from {old!r} to {value!r} changed nothing on {page} ({lang})"
            head = notice(lang)
            assert any(head in text for text in after), \
                f"{key} from {old!r} to {value!r} changed nothing and no notice {head!r} says why"
        seen |= controls(at)
    untested = seen - {key for key, _, _ in moves}
    assert not untested, f"controls on {page} that no move touches: {sorted(untested)}"
    return moved


def _keys(moves: list[tuple]) -> set[str]:
    return {key for key, _, _ in moves}


def _head(key: str):
    """The first words of a catalogue string (up to its first field), in a given language."""
    return lambda lang: catalogue()[key][lang == "zh"].split("{")[0]


def _label(index: int, split: bool = False):
    """The option at ``index`` of a selectbox (its label; split into tokens for token lists)."""
    def choose(widget):
        label = widget.options[index]
        return label.split(" ") if split else label
    return choose


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_corpus_controls(lang):
    moves = [("corpus_top", 50, None)]
    assert play("corpus", lang, {}, moves) == _keys(moves)  # every control enabled and moved


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_ngram_controls(lang):
    moves = [
        ("ngram_rows", 15, None),
        ("ngram_delta", 0.5, None),
        ("ngram_d", 0.5, None),
        ("ngram_methods", ["mle", "modified-kn"], None),
        ("ngram_word", _label(1), None),
        ("ngram_sample_method", "mle", None),
        ("ngram_seed", 1, None),
        ("ngram_context_pick", _label(1, split=True), None),
        ("ngram_order", 2, None),
        ("ngram_context_mode", "type", None),
        ("ngram_context_typed", "the river", None),
        ("ngram_order", 3, None),
        ("ngram_context_typed", "river", None),
        ("ngram_start", lambda w: not w.value, None),
        ("ngram_context_typed", "zzqxv qqqzz", None),
        ("ngram_start", lambda w: not w.value, None),  # two words fill a trigram's context
        ("ngram_rows", 20, _head("ngram.table.none_seen")),
    ]
    assert play("ngram", lang, {"n": "3"}, moves, opened=("ngram_formula_open",)) == _keys(moves)  # every control enabled and moved


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_chain_rule_controls(lang):
    moves = [
        ("chain_order", 2, None),
        ("chain_method", "mle", None),
        ("chain_pick", _label(1, split=True), None),
        ("chain_mode", "type", None),
        ("chain_typed", "the river", None),
        ("chain_typed", "the sea", None),
        ("chain_method", lambda w: next(o for o in w.options if o not in _method_labels(lang)), None),
        ("chain_order", 4, None),
    ]
    assert play("chain_rule", lang, {"method": "modified-kn", "n": "3"}, moves) == _keys(moves)  # every control enabled and moved


def _method_labels(lang):
    from lmcore.ngram import METHODS

    return {t(f"ngram.method.{m}", lang) for m in METHODS}


STOPPED = _head("decoding.stopped_early")


def _shift(widget):
    """Two steps away from the current value, inside the slider's range."""
    return widget.value - 2 if widget.value > 4 else widget.value + 2


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_decoding_controls(lang):
    moves = [
        ("decoding_k", 3, None),
        ("decoding_L_textbook", 5, STOPPED),
        ("decoding_alpha", 0.0, None),
        ("decoding_pruned", 1, None),
        ("decoding_source", "ngram", None),
        ("decoding_order", 2, None),
        ("decoding_prompt", "the river", None),
        ("decoding_L_ngram", _shift, STOPPED),
        ("decoding_pruned", 3, None),
        ("decoding_source", "neural", None),
        ("decoding_L_neural", _shift, STOPPED),
        ("decoding_source", "seq2seq", None),
        ("decoding_s2s_task", lambda w: w.options[-1], None),
        ("decoding_s2s_source", "1234", None),
        ("decoding_L_seq2seq", _shift, STOPPED),
    ]
    assert play("decoding", lang, {}, moves) == _keys(moves)  # every control enabled and moved
