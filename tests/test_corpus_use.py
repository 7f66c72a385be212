"""server/corpus_use.py in the app: a corpus other than a built-in default (here the English sample with
lowercasing off) is stored with everything made from it under its tags, kept while the session that
showed it is connected, and dropped when it has ended; the built-in default and what is made from
it stay."""
from tests.apptest_helpers import errors, run_page, setting
from server.corpus_use import corpus_tracker
from server.models import data_store


def tagged_keys(store, prefix: str) -> list:
    return [key for key, tag in list(store._tags.items()) if str(tag).startswith(prefix)]


def test_a_sample_with_other_settings_is_dropped_when_its_session_has_ended():
    at = run_page("ngram")
    store = data_store()
    default_key = at.session_state["corpus"].key
    at.sidebar.checkbox(key=setting(at, "lowercase")).uncheck().run()
    assert errors(at) == []
    variant = at.session_state["corpus"]
    assert variant.key != default_key
    made_from_variant = tagged_keys(store, "corpus:" + variant.key)
    assert any(key[0] == "counts" for key in made_from_variant)  # the page counted n-grams of it
    assert any(key[0] == "corpus" for key in tagged_keys(store, "built:"))

    at.sidebar.checkbox(key=setting(at, "lowercase")).check().run()
    assert at.session_state["corpus"].key == default_key
    corpus_tracker().sweep(lambda session_id: True)  # the session is live (it shows the default now)
    assert all(key in store for key in made_from_variant)  # kept for it: it may go back
    corpus_tracker().sweep(lambda session_id: False)  # the session has ended
    assert not [key for key in made_from_variant if key in store]
    assert ("corpus", "english", variant.settings, 0, "") not in store
    assert any(key[:2] == ("corpus", "english") for key in list(store._items))  # the default stays
    assert any(key[0] == "counts" for key in tagged_keys(store, "corpus:" + default_key))  # and its counts
