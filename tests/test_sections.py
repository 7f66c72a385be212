"""Pages in parts (ui/sections.py) in AppTest: only the open part runs, a link opens its part, a bad
``?part=`` falls back to the first with a notice, the language switch keeps the open part, and the
widgets of a closed part keep their values (those whose range never changes)."""
import pytest

from lmcore.i18n import t
from lmcore.teaching.course import part_label_key
from tests.apptest_helpers import errors, run_page, show_part
from tests.fragments import deltas, fragment_of, run_fragment, sent_messages
from ui.navigation import PARTS


def open_part(at, stem: str) -> str:
    """The name of the open part."""
    labels = {t(part_label_key(stem, name), at.session_state["lang"]): name for name in PARTS[stem]}
    return labels[at.session_state[f"part_{stem}"]]


@pytest.mark.parametrize("stem", sorted(PARTS))
def test_a_page_opens_on_its_first_part_and_a_link_on_its_own(stem):
    at = run_page(stem, "en")
    assert errors(at) == [] and open_part(at, stem) == PARTS[stem][0]
    assert at.segmented_control(key=f"part_{stem}").options == [t(part_label_key(stem, name), "en") for name in PARTS[stem]]
    last = PARTS[stem][-1]
    at = run_page(stem, "zh", query={"part": last})
    assert errors(at) == [] and open_part(at, stem) == last
    assert at.query_params["part"] == last


def test_only_the_open_part_runs():
    at = run_page("gradients", "en")
    labels = [m.label for m in at.metric]
    assert t("gradients.metric.sigma1", "en") in labels
    assert t("gradients.cliff.max_step_plain", "en") not in labels  # the cliff's part did not run
    show_part(at, "gradients", "clipping")
    assert t("gradients.cliff.max_step_plain", "en") in [m.label for m in at.metric]
    assert t("gradients.metric.sigma1", "en") not in [m.label for m in at.metric]  # the curves' part did not run


def part_bars(messages: list, stem: str) -> list:
    """The deltas of page ``stem``'s bar of parts (a segmented control keyed ``part_<stem>``)."""
    return [d for d in deltas(messages) if d.WhichOneof("type") == "new_element"
            and d.new_element.WhichOneof("type") == "button_group"
            and d.new_element.button_group.id.endswith(f"-part_{stem}")]


@pytest.mark.parametrize("stem", sorted(PARTS))
def test_the_bar_of_parts_is_one_widget_with_a_part_always_open_and_no_tabs(stem):
    """Tabs are a block, which Streamlit's frontend renders again at every update of every run, even
    a fragment's they are not in; an unchanged widget it does not (issue 39): no page sends tabs, and
    its bar cannot be emptied by a click on the open part (``required``)."""
    with sent_messages() as whole:
        at = run_page(stem, "en")
    blocks = [d.add_block.WhichOneof("type") for d in deltas(whole) if d.WhichOneof("type") == "add_block"]
    assert errors(at) == [] and "tab_container" not in blocks and "tab" not in blocks
    assert len(part_bars(whole, stem)) == 1 and part_bars(whole, stem)[0].new_element.button_group.required


@pytest.mark.parametrize("stem, control, value", [("ngram", "ngram_order", 4), ("decoding", "decoding_k", 3),
                                                   ("chain_rule", "chain_order", 4)])
def test_a_move_of_a_setting_above_the_parts_does_not_send_the_bar_again(stem, control, value):
    """Settings that every part follows are drawn under the bar of parts, in a fragment with the open
    part (ui/teaching.py's ``part_bar``): the bar stays out of the fragment, so a move does not resend it."""
    at = run_page(stem, "en")
    with sent_messages() as whole:
        at.run()
    assert len(part_bars(whole, stem)) == 1 and part_bars(whole, stem)[0].fragment_id == ""
    at.slider(key=control).set_value(value)
    sent = run_fragment(at, fragment_of(whole, control))
    assert errors(at) == [] and sent and part_bars(sent, stem) == []


def test_a_click_on_another_part_opens_it_and_names_it_in_the_address():
    at = run_page("lstm", "en")
    at.segmented_control(key="part_lstm").set_value(t(part_label_key("lstm", "compare"), "en")).run()
    assert errors(at) == [] and open_part(at, "lstm") == "compare" and at.query_params["part"] == "compare"
    assert at.header[0].value == t("lstm.cmp.header", "en")


def test_a_bad_part_in_a_link_opens_the_first_with_a_notice():
    at = run_page("ngram", "en", query={"part": "<script>"})
    assert errors(at) == [] and open_part(at, "ngram") == "words"
    assert any("part" in toast.value for toast in at.toast)
    assert at.query_params["part"] == "words"


def test_switching_the_language_keeps_the_open_part():
    at = run_page("lstm", "en", query={"part": "compare"})
    assert open_part(at, "lstm") == "compare"
    at.session_state["lang"] = "zh"
    at.run()
    assert errors(at) == [] and open_part(at, "lstm") == "compare"
    assert at.header[0].value == t("lstm.cmp.header", "zh")


def test_a_closed_part_keeps_its_controls_and_a_range_that_changed_starts_afresh():
    at = run_page("gradients", "en", query={"corpus": "synthetic"})
    at.session_state["grad_formula_open"] = True  # the curves' formula expander (drawn only when open): kept open
    at.run()
    at.slider(key="grad_scale").set_value(1.5).run()
    show_part(at, "gradients", "clipping")
    at.slider(key="cliff_threshold").set_value(5.0).run()
    show_part(at, "gradients", "why")  # shares the curves' controls: the scale moved there
    assert at.slider(key="grad_scale").value == 1.5
    show_part(at, "gradients", "clipping")
    assert at.slider(key="cliff_threshold").value == 5.0 and errors(at) == []
    show_part(at, "gradients", "curves")
    at.slider(key="grad_d").set_value(90).run()  # the distance picked, up to T − 1 = 99
    at.select_slider(key="grad_T").set_value(50).run()
    assert errors(at) == [] and at.slider(key="grad_d").max == 49  # no "value above max" error


def test_the_open_parts_widgets_are_not_sent_again_as_values_the_script_set():
    """A kept widget the run draws keeps its own value: it reaches the browser as a widget value, not
    as one the script set (``set_value``, which has the browser draw it a second time), on the run
    that moves another control and on the run that opens its part again."""
    at = run_page("ngram", "en", query={"corpus": "synthetic"})
    kept = lambda: [at.slider(key="ngram_rows").proto, at.multiselect(key="ngram_methods").proto,  # noqa: E731
                    at.radio(key="ngram_context_mode").proto]
    at.slider(key="ngram_rows").set_value(12).run()
    at.slider(key="ngram_order").set_value(4).run()
    assert errors(at) == [] and [p.set_value for p in kept()] == [False, False, False]
    show_part(at, "ngram", "sparsity")
    show_part(at, "ngram", "words")  # the value kept while the part was closed is set by the script once
    assert at.slider(key="ngram_rows").value == 12 and at.slider(key="ngram_rows").proto.set_value
    at.slider(key="ngram_order").set_value(3).run()
    assert errors(at) == [] and [p.set_value for p in kept()] == [False, False, False]
