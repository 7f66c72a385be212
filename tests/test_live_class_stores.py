"""The live class (server/live_class.py) when its store fails or is restarted, the stores of
server/class_store.py themselves, and the settings read from the environment. The Redis tests start
their own ``redis-server``; they skip where it is not installed (and fail in CI, which installs it)."""
from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from server.class_store import Added, InProcessClassStore, StoreUnavailable
from server.live_class import Advance, ClassLimits, LiveClasses, Problem, Refused, Reveal, Status
from tests import live_class_fixtures
from tests.live_class_fixtures import GENEROUS, NUMBER_Q, REDIS_SERVER, FakeClock, RedisServer, ok, require_redis_server, started

redis_url = live_class_fixtures.redis_url  # a fixture: the module's redis-server


# ------------------------------------------------------------------------------------------------
# An unreachable store


class DownStore:
    """A store that cannot be reached."""

    def __getattr__(self, name):
        def down(*args, **kwargs):
            raise StoreUnavailable("down")

        return down


def every_call(classes: LiveClasses, code: str, token: str, stamp: str | None) -> list[object]:
    return [classes.start_class("ngram", 0), classes.join(code, "a"), classes.join(code, "new", "Nick"),
            classes.answer(code, "a", "q-pi", "3"), classes.instructor_action(code, token, 99, Advance("x")),
            classes.instructor_action(code, token, 100, Reveal()), classes.student_view(code, "a"),
            classes.student_poll(code, "a", stamp), classes.projector_view(code, token)]


def assert_paused(results: list[object]) -> None:
    for result in results:
        if isinstance(result, Refused):
            assert result.problem is Problem.PAUSED, result
        else:
            assert result.status is Status.PAUSED, result


def test_an_unreachable_store_pauses_the_class_without_raising():
    assert_paused(every_call(LiveClasses(DownStore()), "ABCDE", "token", "x.1"))


def test_redis_stopped_mid_lesson_pauses_and_resumes(tmp_path):
    """With ``--appendonly yes`` (the production recommendation) a restart keeps the class."""
    require_redis_server()
    from server.class_store import RedisClassStore

    server = RedisServer(tmp_path, appendonly=True)
    server.start()
    store = RedisClassStore(server.url)
    try:
        classes = LiveClasses(store, GENEROUS)
        code, token = started(classes)
        for phone in ("a", "b", "c"):
            ok(classes.join(code, phone))
        ok(classes.instructor_action(code, token, 1, NUMBER_Q))
        ok(classes.answer(code, "a", "q-pi", "3"))
        stamp = classes.student_view(code, "a").stamp

        server.stop()
        assert_paused(every_call(classes, code, token, stamp))

        server.start()
        assert classes.student_view(code, "a").status is Status.LIVE
        ok(classes.answer(code, "b", "q-pi", "3.14"))
        ok(classes.answer(code, "c", "q-pi", "3.5"))
        view = classes.projector_view(code, token)
        assert (view.status, view.joined, view.answered) == (Status.LIVE, 3, 3)
        ok(classes.instructor_action(code, token, 2, Reveal()))
        assert classes.student_view(code, "b").own_correct is True
    finally:
        store.close()
        server.stop()


# ------------------------------------------------------------------------------------------------
# The stores themselves


@pytest.fixture(params=["memory", "redis"])
def store(request):
    if request.param == "memory":
        yield InProcessClassStore(FakeClock())
        return
    from server.class_store import RedisClassStore

    made = RedisClassStore(request.getfixturevalue("redis_url"))
    yield made
    made.close()


def test_store_operations(store):
    key, guard = f"t-{uuid.uuid4().hex}", f"g-{uuid.uuid4().hex}"
    assert store.read_all(key) == {} and store.read(key, ["x"]) == [None] and store.size(key) == 0
    assert store.write(key, {"a": "1"}, 60, bump="v") == 1
    assert store.write(key, {"b": "2"}, 60, bump="v") == 2
    assert store.write(key, {"c": "3"}, 60) is None
    assert store.read_all(key) == {"a": "1", "b": "2", "c": "3", "v": "2"} and store.size(key) == 4
    assert not store.write_if(key, "w", "x", 60, guard_key=guard, guard_field="open", expected="1")
    store.write(guard, {"open": "1"}, 60)
    assert store.write_if(key, "w", "x", 60, guard_key=guard, guard_field="open", expected="1")
    assert store.read(key, ["w", "nope"]) == ["x", None]
    assert [store.add_capped(f"{key}:s", f, "", 2, 60) for f in "aab" + "c"] == [
        Added.ADDED, Added.EXISTS, Added.ADDED, Added.FULL]
    assert not store.raise_to(f"{key}:absent", "seq", 1)
    assert store.raise_to(key, "seq", 0) and store.raise_to(key, "seq", 3)
    assert not store.raise_to(key, "seq", 3) and not store.raise_to(key, "seq", 2)
    assert [store.take_token(f"{key}:r", "b", 2, 1.0, 100.0, 60) for _ in range(3)] == [True, True, False]
    assert store.take_token(f"{key}:r", "b", 2, 1.0, 101.0, 60)
    assert not store.take_token(f"{key}:r", "b", 2, 1.0, 50.0, 60)  # a clock behind refills nothing
    store.remove(key, ["a", "b"])
    assert "a" not in store.read_all(key)
    store.delete([key, guard])
    assert store.read_all(key) == {} and store.read_all(guard) == {}


def test_in_process_keys_expire():
    clock = FakeClock()
    store = InProcessClassStore(clock)
    store.write("k", {"a": "1"}, 10)
    store.write("other", {"a": "1"}, 100)
    clock.advance(9)
    store.expire(["k"], 10)
    clock.advance(9)
    assert store.read_all("k") == {"a": "1"}
    clock.advance(2)
    assert store.read_all("k") == {} and store.size("k") == 0
    store.expire(["k"], 10)  # an expired key is not brought back
    assert store.read_all("k") == {}
    clock.advance(100)
    store.write("new", {"a": "1"}, 10)  # a write sweeps the expired keys away
    assert set(store._hashes) == {"new"}


def test_redis_keys_carry_a_time_to_live(redis_url):
    import redis

    from server.class_store import RedisClassStore

    classes = LiveClasses(RedisClassStore(redis_url), ClassLimits(ttl_seconds=600), namespace=f"ttl-{uuid.uuid4().hex}:")
    code, token = started(classes)
    ok(classes.join(code, "a"))
    ok(classes.instructor_action(code, token, 1, NUMBER_Q))
    ok(classes.answer(code, "a", "q-pi", "3"))
    client = redis.Redis.from_url(redis_url)
    try:
        keys = client.keys(f"{classes._ns}*")
        assert len(keys) == 6  # the registry, meta, secret, students, rate, answers
        assert all(0 < client.ttl(key) <= 600 + 300 for key in keys)
    finally:
        client.close()
        classes.store.close()


def test_settings_from_the_environment(monkeypatch, request):
    from server.class_store import RedisClassStore
    from server.live_class import live_classes, store_from_env

    for name in ("LMLAB_CLASS_HOURS", "LMLAB_CLASS_STUDENTS", "LMLAB_CLASSES", "LMLAB_REDIS_URL"):
        monkeypatch.delenv(name, raising=False)
    assert ClassLimits.from_env() == ClassLimits()
    assert isinstance(store_from_env(), InProcessClassStore)
    # the process's instance, made (if not yet) from the defaults: made under the settings below, it
    # would cap every later test of this process at one class
    assert live_classes() is live_classes()
    monkeypatch.setenv("LMLAB_CLASS_HOURS", "0.5")
    monkeypatch.setenv("LMLAB_CLASS_STUDENTS", "not a number")
    monkeypatch.setenv("LMLAB_CLASSES", "0")
    assert ClassLimits.from_env() == ClassLimits(ttl_seconds=1800.0, classes_per_server=1)
    if Path(REDIS_SERVER).exists():
        monkeypatch.setenv("LMLAB_REDIS_URL", request.getfixturevalue("redis_url"))
        made = store_from_env()
        assert isinstance(made, RedisClassStore)
        made.close()
