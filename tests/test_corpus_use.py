"""server/corpus_use.py in the app: a corpus other than a built-in default (here the English sample with
lowercasing off) is stored with everything made from it under its tags, kept while the session that
showed it is connected, and dropped when it has ended; the built-in default and what is made from
it stay."""
from lmcore.samples import default_settings
from server.corpus_keys import built_tag, corpus_key, corpus_tag
from server.corpus_use import corpus_tracker
from server.stores import data_store
from tests.apptest_helpers import errors, run_page, setting


def test_a_sample_with_other_settings_is_dropped_when_its_session_has_ended():
    at = run_page("ngram")
    store = data_store()
    default_key = at.session_state["corpus"].key
    at.sidebar.checkbox(key=setting(at, "lowercase")).uncheck().run()
    assert errors(at) == []
    variant = at.session_state["corpus"]
    assert variant.key != default_key
    made_from_variant = store.tagged(corpus_tag(variant))
    assert any(key.startswith("counts:") for key in made_from_variant)  # the page counted n-grams of it
    variant_key = corpus_key("english", variant.settings)
    assert store.tagged(built_tag(variant_key)) == [variant_key]

    at.sidebar.checkbox(key=setting(at, "lowercase")).check().run()
    assert at.session_state["corpus"].key == default_key
    corpus_tracker().sweep(lambda session_id: True)  # the session is live (it shows the default now)
    assert all(key in store for key in made_from_variant)  # kept for it: it may go back
    corpus_tracker().sweep(lambda session_id: False)  # the session has ended
    assert not [key for key in made_from_variant if key in store]
    assert variant_key not in store
    assert corpus_key("english", default_settings("english")) in store  # the default stays
    assert any(key.startswith("counts:") for key in store.tagged(corpus_tag(default_key)))  # and its counts
