"""The Store protocol (server/store.py), run against every back end: budget and LRU eviction, tags,
TTL, and single flight under threads (Events and Barriers, no sleeps)."""
import functools
import secrets
import sys
import threading

import numpy as np
import pytest

from server.sizes import OBJECT_OVERHEAD, nbytes, token_lists_nbytes
from server.store import InProcessStore, Store, TooLarge, store_key
from tests.redis_server import redis_url  # noqa: F401 - a fixture


class Clock:
    """A clock the test moves by hand (for TTLs)."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def in_process(budget, item_share=0.5, clock=None, on_wait=None):
    return InProcessStore(budget, item_share, clock=clock or Clock(), on_wait=on_wait)


def in_redis(url, budget, item_share=0.5, clock=None, on_wait=None):
    """A RedisStore in a namespace of its own on the session's redis-server (tests/redis_server.py)."""
    from server.redis_store import RedisStore

    return RedisStore.from_url(url, f"test:{secrets.token_hex(4)}:", budget, item_share=item_share,
                               clock=clock or Clock(), on_wait=on_wait)


BACK_ENDS = [in_process, in_redis]


@pytest.fixture(params=BACK_ENDS, ids=lambda make: make.__name__)
def make(request):
    if request.param is in_redis:
        return functools.partial(in_redis, request.getfixturevalue("redis_url"))
    return request.param


def test_every_back_end_follows_the_protocol(make):
    assert isinstance(make(100), Store)


def test_least_recently_used_go_first_and_oversized_items_are_refused(make):
    store = make(100, item_share=0.6)
    store.put("a", "A", 40)
    store.put("b", "B", 40)
    assert store.get("a") == "A"  # a is now the most recently used
    store.put("c", "C", 50)  # 130 > 100: b goes first
    assert "b" not in store and store.get("a") == "A" and store.get("c") == "C" and store.nbytes == 90
    with pytest.raises(TooLarge) as refused:
        store.put("d", "D", 61)
    assert (refused.value.needed, refused.value.allowed) == (61, 60) and "d" not in store and store.nbytes == 90
    store.put("a", "A2", 10)  # replacing a key frees its old size
    assert store.get("a") == "A2" and store.nbytes == 60 and len(store) == 2
    store.clear()
    assert len(store) == 0 and store.nbytes == 0 and store.get("a") is None


def test_tags_drop_together_and_list_newest_first(make):
    store = make(1000)
    store.put("corpus", "C", 10, tags=["upload:1"])
    store.put("counts", "N", 10, tags=["upload:1", "counts"])
    store.put("other", "O", 10, tags=["upload:2"])
    store.put("english", "E", 10)
    assert store.tagged("upload:1") == ["counts", "corpus"] and store.tagged("nothing") == []
    assert store.discard_tag("upload:1") == 2
    assert "corpus" not in store and "counts" not in store and store.tagged("counts") == []
    assert store.get("other") == "O" and store.get("english") == "E" and store.nbytes == 20
    assert store.discard("other") and not store.discard("other") and store.tagged("upload:2") == []
    store.put("x", "X", 450)  # evicted keys leave their tags too
    store.put("y", "Y", 10, tags=["t"])
    store.put("z1", "Z", 500)
    store.put("z2", "Z", 500, tags=["t"])  # 1470 > 1000: english, x and y go, oldest first
    assert store.tagged("t") == ["z2"] and "y" not in store and "english" not in store and store.nbytes == 1000


def test_an_item_with_a_time_to_live_expires(make):
    clock = Clock()
    store = make(100, clock=clock)
    store.put("short", "S", 10, tags=["t"], ttl=5)
    store.put("long", "L", 10, tags=["t"])
    clock.now = 4.9
    assert store.get("short") == "S"
    clock.now = 5.0
    assert store.get("short") is None and "short" not in store and store.tagged("t") == ["long"]
    assert store.nbytes == 10
    store.put("a", "A", 10, tags=["u"], ttl=1)
    store.put("b", "B", 10, tags=["u"], ttl=1)
    clock.now = 6.0
    assert store.tagged("u") == [] and store.nbytes == 10  # listing a tag drops what expired under it


class Race:
    """One leader building ``key`` (held until :meth:`finish`) and ``n - 1`` callers that ask while it
    builds; the store tells (``on_wait``) when each has joined the build in flight."""

    def __init__(self, make, build_outcome, size=10, n=6, budget=1000):
        self.joined, self.entered, self.release = threading.Semaphore(0), threading.Event(), threading.Event()
        self.store = make(budget, on_wait=lambda key: self.joined.release())
        self.builds, self.n, self.outcome, self.size = [], n, build_outcome, size
        self.results, self.errors = {}, {}

    def build(self):
        self.builds.append(threading.current_thread().name)
        self.entered.set()
        assert self.release.wait(60)
        return self.outcome()

    def ask(self, i):
        try:
            self.results[i] = self.store.get_or_build("k", self.build, lambda value: self.size)
        except BaseException as error:  # every caller's outcome is looked at
            self.errors[i] = error

    def run(self):
        leader = threading.Thread(target=self.ask, args=(0,))
        leader.start()
        assert self.entered.wait(60)  # the leader is building
        others = [threading.Thread(target=self.ask, args=(i,)) for i in range(1, self.n)]
        for thread in others:
            thread.start()
        for _ in others:  # every other caller has joined the leader's build
            assert self.joined.acquire(timeout=60), "a caller did not wait for the build in flight"
        self.release.set()
        for thread in [leader, *others]:
            thread.join(60)
            assert not thread.is_alive()
        return self


def test_concurrent_callers_of_one_key_share_one_build(make):
    race = Race(make, lambda: ["value"]).run()
    assert len(race.builds) == 1 and race.errors == {}
    assert len(race.results) == race.n and all(v is race.results[0] for v in race.results.values())
    assert race.store.get("k") is race.results[0]


def boom():
    raise ValueError("no such corpus")


@pytest.mark.parametrize("outcome, size, error", [(boom, 10, ValueError), (lambda: "huge", 10_000, TooLarge)],
                         ids=["build raises", "too large to keep"])
def test_a_failing_build_is_raised_to_every_waiter_once(make, outcome, size, error):
    race = Race(make, outcome, size=size).run()
    assert len(race.builds) == 1 and race.results == {}
    assert len(race.errors) == race.n and all(isinstance(e, error) for e in race.errors.values())
    assert len({id(e) for e in race.errors.values()}) == 1  # the same exception, not n builds' own
    assert "k" not in race.store
    assert race.store.get_or_build("k", lambda: "later", lambda v: 10) == "later"  # a later call builds anew


class Interrupted(BaseException):
    """Stands for Streamlit's rerun of the leader's script: control flow, not a failed build."""


def test_an_interrupted_build_is_taken_over_by_a_waiter_not_raised_to_it(make):
    calls = []

    def interrupted_once():
        calls.append(1)
        if len(calls) == 1:
            raise Interrupted()
        return "built"

    race = Race(make, interrupted_once).run()
    assert isinstance(race.errors.pop(0), Interrupted)  # only the interrupted caller sees it
    assert race.errors == {} and list(race.results.values()) == ["built"] * (race.n - 1)
    assert len(race.builds) == 2 and race.store.get("k") == "built"  # one waiter built again, once


def test_many_keys_under_contention_stay_within_the_budget(make):
    store, builds, lock = make(1000), [], threading.Lock()

    def build(key):
        def made():
            with lock:
                builds.append(key)
            return key
        return made

    failures = []

    def worker(i):
        try:
            for n in range(200):
                key = f"k{(i + n) % 12}"
                assert store.get_or_build(key, build(key), lambda value: 100) == key
                assert store.nbytes <= 1000
        except Exception as exc:  # collected: any thread's failure fails the test
            failures.append(exc)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert failures == [] and store.nbytes <= 1000 and len(store) <= 10 and len(builds) >= 12


def test_store_keys_name_their_kind_and_parts():
    assert store_key("counts", "abc", 3) == "counts:'abc'|3"
    assert store_key("counts", "abc", 3) != store_key("counts", "abc|3")
    assert store_key("corpus", ("a", 1)) == store_key("corpus", ("a", 1))


def test_sizes_count_arrays_tensors_token_lists_and_what_objects_reach():
    import torch

    array = np.zeros((10, 10))
    assert nbytes(array) == 800 + OBJECT_OVERHEAD
    module = torch.nn.Linear(3, 4)  # 12 weights + 4 biases, float32
    assert nbytes(module) == 16 * 4 + OBJECT_OVERHEAD
    sentences = [["a", "b"], ["c"]]
    assert token_lists_nbytes(sentences) == sys.getsizeof(sentences) + sum(sys.getsizeof(s) for s in sentences)

    class Holder:
        def __init__(self):
            self.weights, self.logs, self.name = array, {"loss": np.zeros(5, dtype=np.float32)}, "x" * 7

    assert nbytes(Holder()) == 800 + 20 + 7 + OBJECT_OVERHEAD
