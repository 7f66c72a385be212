"""A page's settings live in the session and its share link, not in the address (ui/state.py
``keep_settings``): a move of a control sends no change of address (each costs the browser a render
of the whole app and a history entry), and a link's settings open the page, then leave the address."""
import pytest

from tests.apptest_fragments import run_fragment
from tests.apptest_helpers import errors, kept_settings, run_page, show_part

# page, part (None: the page's first), control, value moved to, its fragment, its name in a link
MOVES = [
    ("corpus", "tokens", "corpus_top", 50, "corpus_top_tokens", "top"),
    ("chain_rule", None, "chain_order", 2, "chain_rule", "n"),
    ("ngram", None, "ngram_order", 4, "ngram_settings", "n"),
    ("gradients", "curves", "grad_scale", 1.05, "grad_curves", "s1"),
    ("decoding", None, "decoding_k", 3, "decoding_settings", "k"),
]


@pytest.mark.parametrize("stem, part, key, value, fragment, name", MOVES, ids=[m[2] for m in MOVES])
def test_a_move_changes_no_address_and_the_share_link_follows(stem, part, key, value, fragment, name):
    at = run_page(stem, "en")
    if part:
        show_part(at, stem, part)
    address = dict(at.query_params)
    next(w for kind in ("slider", "select_slider") for w in at.get(kind) if w.key == key).set_value(value)
    run = run_fragment(at, fragment)
    assert not errors(at) and run.deltas
    assert not [m for m in run.messages if m.WhichOneof("type") == "page_info_changed"]
    assert kept_settings(at)[name] == str(value) and dict(at.query_params) == address
    at.session_state["teaching_share_box"] = True
    at.run()
    links = [t.value for t in at.sidebar.get("text") if t.value.startswith("http")]
    assert links and f"{name}={value}" in links[0]


@pytest.mark.parametrize("stem, part, key, value, fragment, name", MOVES, ids=[m[2] for m in MOVES])
def test_an_open_share_link_follows_a_move(stem, part, key, value, fragment, name):
    """The share link sits in the sidebar, which a fragment's run cannot redraw: a move that changes
    a kept setting while it is open reruns the whole page."""
    at = run_page(stem, "en")
    if part:
        show_part(at, stem, part)
    at.session_state["teaching_share_box"] = True
    at.run()
    next(w for kind in ("slider", "select_slider") for w in at.get(kind) if w.key == key).set_value(value)
    run_fragment(at, fragment)
    assert not errors(at)
    links = [t.value for t in at.sidebar.get("text") if t.value.startswith("http")]
    assert links and f"{name}={value}" in links[0]


def test_a_links_setting_opens_the_page_then_leaves_the_address():
    at = run_page("ngram", "en", query={"n": "5", "part": "words"})
    assert not errors(at) and at.slider(key="ngram_order").value == 5
    assert "n" not in at.query_params and at.query_params["part"] == "words"
    assert kept_settings(at)["n"] == "5"
    at.slider(key="ngram_order").set_value(2)
    run_fragment(at, "ngram_settings")
    at.run()  # a whole run after the move: the setting kept, not the link's
    assert not errors(at) and at.slider(key="ngram_order").value == 2 and kept_settings(at)["n"] == "2"


def test_a_page_left_and_opened_again_shows_the_settings_it_was_left_with():
    at = run_page("ngram", "en")
    at.slider(key="ngram_order").set_value(5)
    run_fragment(at, "ngram_settings")
    at.run()
    at.switch_page("app_pages/decoding.py").run()  # a page with settings of its own between
    assert not errors(at) and at.slider(key="decoding_k").value == 2
    at.switch_page("app_pages/ngram.py").run()
    assert not errors(at) and at.slider(key="ngram_order").value == 5 and "n" not in at.query_params


def test_an_open_exercise_sheet_follows_the_deck_settings():
    """The sheet's questions are made from the deck's settings (ui/teaching.py Deck.settings): a move
    that changes them while its box is open reruns the whole page, the sidebar's sheet with it."""
    at = run_page("ngram", "en")
    at.session_state["teaching_sheet_box"] = True
    at.run()
    assert at.session_state["teaching_tools_ngram"]["order"] == 3
    at.slider(key="ngram_order").set_value(4)
    run = run_fragment(at, "ngram_settings")
    assert not errors(at) and run.outside  # elements outside the fragment were sent: the page ran whole
    assert at.session_state["teaching_tools_ngram"]["order"] == 4
