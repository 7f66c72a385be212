"""An upload is kept by its owner (the browser), not by the session: a new session of the same owner
gets it back with a notice; the same bytes uploaded under two names show each student their own name;
another owner never reaches it (server/uploads.py, ui/sidebar.py). The helpers run on both store back
ends; the pages run in AppTest on the app's own store."""
import functools
import secrets

import pytest

from lmcore.i18n import t
from server.store import InProcessStore
from server.uploads import forget_upload, keep_upload, kept_upload
from tests.apptest_helpers import errors, setting
from tests.redis_server import redis_url  # noqa: F401 - a fixture

TEXT = "".join(f"The lighthouse keeper counts {i} gulls on the rock .\n" for i in range(60)).encode()


def _upload(at, name: str, data: bytes):
    at.sidebar.get("file_uploader")[0].set_value((name, data, "text/plain"))
    return at.run()


def _session(owner: str, stem: str = "home"):
    """A new session of the browser whose owner key is ``owner`` (as a reload or another replica)."""
    from streamlit.testing.v1 import AppTest

    from tests.apptest_helpers import APP

    at = AppTest.from_file(APP, default_timeout=120)
    at.session_state["lang"] = "en"
    at.session_state["owner_id"] = owner
    at.run()
    if stem != "home":
        at.switch_page(f"app_pages/{stem}.py").run()
    return at


def test_same_bytes_under_two_names_each_student_sees_their_own_name():
    alice = _upload(_session("browser-alice-" + secrets.token_hex(4)), "alice_private_diary.txt", TEXT)
    bob = _upload(_session("browser-bob-" + secrets.token_hex(4)), "bob_copy.txt", TEXT)
    assert errors(alice) == [] and errors(bob) == []
    assert alice.session_state["corpus"].name == "alice_private_diary.txt"
    assert bob.session_state["corpus"].name == "bob_copy.txt"
    assert bob.session_state["corpus"].key == alice.session_state["corpus"].key  # one corpus, by content
    home = t("home.current", "en", name="", summary="").split("{")[0][:10]
    bob.switch_page("app_pages/home.py").run()
    shown = " ".join(block.value for block in bob.info)
    assert home in shown and "alice" not in shown and "bob" in shown


def test_a_new_session_of_the_same_owner_gets_its_upload_back_and_another_owner_does_not(monkeypatch):
    monkeypatch.setenv("LMLAB_KEEP_UPLOADS", "1")  # one server: asked for (a shared store: always)
    owner = "browser-" + secrets.token_hex(6)
    first = _upload(_session(owner), "harbour.txt", TEXT)
    first.sidebar.checkbox(key=setting(first, "lowercase")).set_value(False).run()
    again = _session(owner)  # the reload, or the replica that took over
    assert any("harbour" in block.value for block in again.sidebar.info)  # told
    again.switch_page("app_pages/corpus.py").run()
    assert errors(again) == [] and not again.sidebar.info  # once
    assert again.sidebar.radio(key=setting(again, "source")).value == "upload"
    assert again.session_state["corpus"].name == "harbour.txt"
    assert again.sidebar.checkbox(key=setting(again, "lowercase")).value is False  # its settings too
    stranger = _session("browser-" + secrets.token_hex(6), "corpus")
    assert "upload" not in stranger.session_state and stranger.session_state["corpus"].name == "english"
    first.sidebar.get("file_uploader")[0].set_value(None).run()  # removed: not restored any more
    assert "upload" not in _session(owner).session_state


def in_process():
    return InProcessStore(2**24)


def in_redis(url):
    from server.redis_store import RedisStore

    return RedisStore.from_url(url, f"test:{secrets.token_hex(4)}:", 2**24, owner_cap=2**20)


@pytest.fixture(params=[in_process, in_redis], ids=lambda make: make.__name__)
def store(request):
    if request.param is in_redis:
        return in_redis(request.getfixturevalue("redis_url"))
    return request.param()


def test_one_server_keeps_no_upload_unless_asked(monkeypatch):
    monkeypatch.delenv("LMLAB_KEEP_UPLOADS", raising=False)
    monkeypatch.delenv("LMLAB_REDIS_URL", raising=False)
    owner = "browser-" + secrets.token_hex(6)
    _upload(_session(owner), "harbour.txt", TEXT)
    assert "upload" not in _session(owner).session_state  # today's one-server behaviour


def test_kept_uploads_belong_to_their_owner_on_every_back_end(store):
    upload = {"name": "a.txt", "data": TEXT, "digest": "d1", "language": "en"}
    keep_upload(store, "alice", upload, {"tokenizer": "words", "lowercase": False, "junk": 1})
    assert kept_upload(store, "bob") is None
    got, settings = kept_upload(store, "alice")
    assert got["name"] == "a.txt" and got["data"] == TEXT and settings == {"tokenizer": "words", "lowercase": False}
    keep_upload(store, "alice", {**upload, "digest": "d2", "name": "b.txt"}, {})
    assert kept_upload(store, "alice")[0]["name"] == "b.txt" and kept_upload(store, "alice")[1] == {}
    forget_upload(store, "alice")
    assert kept_upload(store, "alice") is None


def test_redis_caps_each_owner_and_pushes_out_only_that_owners_oldest(redis_url):  # noqa: F811
    from server.redis_store import RedisStore
    from server.store import TooLarge

    store = RedisStore.from_url(redis_url, f"test:{secrets.token_hex(4)}:", 10_000, item_share=1.0, owner_cap=1000)
    store.put("m1", b"x", 400, tags=["owner:a"])
    store.put("other", b"x", 900, tags=["owner:b"])
    store.put("m2", b"x", 400, tags=["owner:a"])
    store.put("m3", b"x", 400, tags=["owner:a"])  # 1200 > 1000: a's oldest goes, b's stays
    assert "m1" not in store and "m2" in store and "m3" in store and "other" in store
    with pytest.raises(TooLarge):
        store.put("huge", b"x", 1001, tags=["owner:a"])
    store.put("shared", b"x", 1001)  # not an owner's: only the budget applies
    assert store.nbytes == 800 + 900 + 1001


def test_two_processes_share_one_build_of_a_key(redis_url):  # noqa: F811
    """Two RedisStores (as two replicas) ask for one key at once: one builds, the other waits for it."""
    import threading

    from server.redis_store import RedisStore

    namespace, builds = f"test:{secrets.token_hex(4)}:", []
    entered, joined, release = threading.Event(), threading.Event(), threading.Event()
    make = functools.partial(RedisStore.from_url, redis_url, namespace, 10_000)
    first, second = make(), make(on_wait=lambda key: joined.set())

    def build():
        builds.append(1)
        entered.set()
        assert release.wait(60)
        return "built"

    results = {}
    leader = threading.Thread(target=lambda: results.setdefault(1, first.get_or_build("k", build, lambda v: 10)))
    leader.start()
    assert entered.wait(60)  # the first "replica" holds the build lock
    other = threading.Thread(target=lambda: results.setdefault(2, second.get_or_build("k", build, lambda v: 10)))
    other.start()
    assert joined.wait(60)  # the second "replica" waits for the first one's build
    release.set()
    leader.join(60)
    other.join(60)
    assert results == {1: "built", 2: "built"} and len(builds) == 1
