"""server/corpus_worker.py: corpora built in a worker process are the corpora built here; errors, progress,
one build per key, and a worker that dies."""
from __future__ import annotations

import os
import signal
import threading

import numpy as np
import pytest

from lmcore.corpus import CorpusError, CorpusSettings, build_corpus
from lmcore.corpus.limits import APP_LIMITS
from lmcore.corpus.stats import overview
from lmcore.ngram import MAX_ORDER, count_ngrams, estimate_count_bytes, largest_order_within
from lmcore.samples import load_sample, sample_text
from server.corpus_worker import QUEUED, BuildPool

LIMIT = 1 << 30  # bytes the n-gram counts may take


def stop_workers(pool: BuildPool) -> None:
    """End the pool's worker processes, bounded. Not ``shutdown(wait=True)``: after a worker was killed,
    CPython 3.11's executor can wait forever for a worker whose exit joins a queue feeder that nothing
    reads any more (seen once: the suite stood still for a quarter of an hour)."""
    executor = pool._executor
    processes = list((executor._processes or {}).values())
    executor.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        process.join(20)
        if process.is_alive():
            process.kill()
            process.join(10)


@pytest.fixture(scope="module")
def pool():
    built = BuildPool(1)
    yield built
    stop_workers(built)


def _same(a, b) -> None:
    assert (a.key, a.name, a.language, a.encoding, a.settings) == (b.key, b.name, b.language, b.encoding, b.settings)
    assert (a.train, a.valid, a.test) == (b.train, b.valid, b.test)
    assert a.vocab.itos == b.vocab.itos and a.bounded == b.bounded and a.markers == b.markers


def test_builds_run_in_another_process(pool):
    assert pool._executor.submit(os.getpid).result(timeout=120) != os.getpid()


def test_an_upload_built_in_the_worker_is_the_upload_built_here(pool):
    data = ("Привет мир. " + sample_text("english")[:20_000] + " " + "x" * 5000 + ".").encode("utf-16")
    settings = CorpusSettings(tokenizer="whitespace", lowercase=False)
    here = build_corpus(data, "lesson.txt", settings, limits=APP_LIMITS)
    assert here.bounded  # the 5000-character token was cut: the limits were applied in both
    there = pool.build(("upload", 1), "upload", (data, "lesson.txt", settings), LIMIT).corpus
    _same(there, here)
    assert set(there._mapped) == {"train", "valid", "test"}  # computed in the worker, sent along
    assert all(there._mapped[s] == here.mapped(s) for s in ("train", "valid", "test"))


@pytest.mark.parametrize("fits", ["every order", "orders 1-2", "no order"])
def test_the_worker_brings_the_counts_and_statistics_this_process_would_make(pool, fits):
    """Counts of the highest order whose counting fits the limit (as server/models.py's count_order
    picks here), none when no order fits, and the Corpus page's statistics."""
    data = sample_text("english")[:12_000].encode()
    here = build_corpus(data, "small.txt", CorpusSettings(), limits=APP_LIMITS)
    n_tokens = here.n_tokens + len(here.sentences)
    limit = {"every order": LIMIT, "orders 1-2": estimate_count_bytes(n_tokens, 2), "no order": 1000}[fits]
    built = pool.build(("upload", "extras", limit), "upload", (data, "small.txt", CorpusSettings()), limit)
    order = {"every order": MAX_ORDER, "orders 1-2": 2, "no order": 0}[fits]
    assert largest_order_within(n_tokens, limit) == order
    if order:
        expected = count_ngrams(here.mapped("train"), order)
        assert built.counts.max_order == order and built.counts.vocab == expected.vocab
        for mine, theirs in zip(expected.tables, built.counts.tables, strict=True):
            assert all(np.array_equal(getattr(mine, f), getattr(theirs, f)) for f in ("keys", "count", "suffix"))
    else:
        assert built.counts is None
    mine, theirs = overview(here), built.statistics
    assert theirs["summary"] == mine["summary"] and theirs["top"] == mine["top"]
    for name in ("zipf", "heaps"):
        assert all(np.array_equal(a, b) for a, b in zip(theirs[name][:2], mine[name][:2])) and theirs[name][2] == mine[name][2]
    assert np.array_equal(theirs["lengths"], mine["lengths"])


def test_a_sample_variant_built_in_the_worker_is_the_one_built_here(pool):
    settings = CorpusSettings(tokenizer="chars", lowercase=False, sentence_mode="lines")
    there = pool.build(("sample", 1), "sample", ("english", settings, 0), LIMIT).corpus
    _same(there, load_sample("english", settings))
    assert there.settings.tokenizer == "chars" and there.n_tokens > 0


@pytest.mark.parametrize("data, key", [(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 40, "error.binary"),
                                       (b"One sentence only", "error.too_few_sentences")])
def test_an_error_in_the_worker_arrives_with_its_key_and_fields(pool, data, key):
    with pytest.raises(CorpusError) as here:
        build_corpus(data, "bad.txt", CorpusSettings(), limits=APP_LIMITS)
    with pytest.raises(CorpusError) as there:
        pool.build(("bad", key), "upload", (data, "bad.txt", CorpusSettings()), LIMIT)
    assert there.value.key == here.value.key == key
    assert there.value.fields == here.value.fields


def test_a_long_upload_reports_its_progress(pool):
    data = (sample_text("english") * 6).encode()
    seen = []
    corpus = pool.build(("upload", "long"), "upload", (data, "long.txt", CorpusSettings()), LIMIT,
                        progress=lambda fraction, stage, ahead=0: seen.append((fraction, stage))).corpus
    assert corpus.n_tokens > 0 and seen  # the page got progress while it waited
    assert all(0.0 <= f <= 1.0 for f, _ in seen)
    assert {s for _, s in seen} <= {"queued", "decode", "split", "tokenize", "done"}


def test_one_key_is_built_once_however_many_runs_wait(pool):
    data = (sample_text("english") * 4).encode()
    args = (data, "same.txt", CorpusSettings(lowercase=False))
    first = pool.submit(("upload", "same"), "upload", args, LIMIT)
    again = pool.submit(("upload", "same"), "upload", args, LIMIT)
    assert again is first or again[1] is first[1]
    results = []
    threads = [threading.Thread(target=lambda: results.append(pool.build(("upload", "same"), "upload", args, LIMIT).corpus))
               for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(300)
    assert len(results) == 3 and results[0].key == results[1].key == results[2].key


def test_a_worker_that_dies_during_a_build_gives_a_clear_error_and_is_replaced():
    pool = BuildPool(1)
    try:
        pid = pool._executor.submit(os.getpid).result(timeout=120)
        data = (sample_text("english") * 40).encode()
        killed = []

        def kill_once_started(fraction, stage, *ahead):  # while queued, the builds ahead come too
            if not killed and stage != QUEUED:
                killed.append(stage)
                os.kill(pid, signal.SIGKILL)

        with pytest.raises(CorpusError) as failed:
            pool.build(("upload", "killed"), "upload", (data, "big.txt", CorpusSettings()), LIMIT,
                       progress=kill_once_started)
        assert killed and failed.value.key == "error.worker_failed"
        corpus = pool.build(("upload", "next"), "upload", (b"A first sentence. A second one.", "a.txt", CorpusSettings()),
                            LIMIT).corpus
        assert corpus.n_tokens > 0  # new workers took over
    finally:
        stop_workers(pool)


def test_a_worker_started_while_the_app_script_is_main_runs_none_of_it(monkeypatch):
    """Streamlit makes app.py ``__main__`` during a run; a spawned worker re-reads it as ``__mp_main__``
    and must run nothing (else it starts a warm-up and workers of its own: a process chain)."""
    import sys
    import types
    from pathlib import Path

    fake_main = types.ModuleType("__main__")
    fake_main.__file__ = str(Path(__file__).resolve().parents[1] / "app.py")
    monkeypatch.setitem(sys.modules, "__main__", fake_main)
    pool = BuildPool(1)
    try:
        imported = pool._executor.submit(eval, "sorted(__import__('sys').modules)").result(timeout=120)
        assert "ui.entry" not in imported and "streamlit" not in imported
    finally:
        stop_workers(pool)


def test_a_worker_leaves_when_its_server_is_killed(tmp_path):
    """A server killed with SIGKILL cannot stop its workers: they notice and leave on their own."""
    import subprocess
    import sys
    import time
    from pathlib import Path

    import psutil

    script = tmp_path / "server.py"
    script.write_text(
        "import os, sys\n"
        f"sys.path.insert(0, {str(Path(__file__).resolve().parents[1])!r})\n"
        "from server.corpus_worker import BuildPool\n"
        "if __name__ == '__main__':\n"
        "    pool = BuildPool(1)\n"
        "    print(pool._executor.submit(os.getpid).result(timeout=120), flush=True)\n"
        "    import time; time.sleep(600)\n", encoding="utf-8")
    server = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    try:
        worker = psutil.Process(int(server.stdout.readline()))
        server.kill()
        server.wait(30)
        deadline = time.monotonic() + 60
        while worker.is_running() and worker.status() != psutil.STATUS_ZOMBIE and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not worker.is_running() or worker.status() == psutil.STATUS_ZOMBIE
    finally:
        server.kill()


def test_idle_workers_that_built_an_upload_are_replaced_by_fresh_ones():
    fresh = BuildPool(1)
    try:
        first = fresh._executor.submit(os.getpid).result(timeout=120)
        assert not fresh.recycle_if_idle()  # nothing uploaded yet: the warm worker stays
        assert fresh._executor.submit(os.getpid).result(timeout=120) == first
        text = sample_text("english")[:5000].encode()
        fresh.build(("upload", "r"), "upload", (text, "r.txt", CorpusSettings()), LIMIT)
        assert fresh.recycle_if_idle()
        second = fresh._executor.submit(os.getpid).result(timeout=120)
        assert second != first
        assert not fresh.recycle_if_idle()  # the new workers have built no upload
        assert fresh.build(("upload", "r2"), "upload", (text, "r2.txt", CorpusSettings()), LIMIT).corpus.n_tokens > 0
    finally:
        stop_workers(fresh)


def test_an_upload_is_counted_and_described_in_the_worker_not_in_the_server(monkeypatch):
    """The server process keeps what the worker sent: opening the n-gram and Corpus pages on a fresh
    upload counts no n-gram and computes no statistics here (that was ~2 s of a 5 MB upload on the
    GIL every student's page waits on)."""
    import server.models
    from tests.apptest_helpers import errors, run_page

    here = []
    monkeypatch.setattr(server.models, "count_ngrams", lambda *a: here.append("counts"))
    monkeypatch.setattr(server.models, "overview", lambda *a: here.append("statistics"))
    text = " ".join(f"Worker {a} text {b} number {c}." for a in range(7) for b in range(6) for c in range(5))
    at = run_page("home", "en")
    at.sidebar.get("file_uploader")[0].set_value(("worker-made.txt", text.encode(), "text/plain"))
    at.run()
    for stem in ("ngram", "corpus"):
        at.switch_page(f"app_pages/{stem}.py").run()
        assert errors(at) == [], stem
    assert at.session_state["source"] == "upload" and here == []


def wait_for(path: str, seconds: float = 180) -> bool:
    """In a worker: an upload that takes until ``path`` exists (at most ``seconds``)."""
    import time
    from pathlib import Path

    deadline = time.monotonic() + seconds
    while not Path(path).exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    return Path(path).exists()


def test_small_texts_are_built_while_a_large_upload_keeps_its_workers_busy(tmp_path, monkeypatch):
    """Small texts (built-in samples under other settings, small uploads) and large uploads have a
    lane each: a student who changes a tokenizer does not wait for another student's 5 MB upload.
    The large upload here lasts until the small texts are built (in one lane they would wait for it:
    it then gives up after 180 s and this fails)."""
    import server.corpus_worker as corpus_worker

    monkeypatch.setattr(corpus_worker, "_pools", {})
    release = tmp_path / "release"
    try:
        large = corpus_worker.pool(corpus_worker.LARGE)._executor.submit(wait_for, str(release))
        settings = CorpusSettings(tokenizer="chars", sentence_mode="lines")
        sample = corpus_worker.build_sample(("sample", "lanes"), "english", settings, 0, LIMIT)
        data = sample_text("english")[:20_000].encode()
        upload = corpus_worker.build_upload(("upload", "lanes"), data, "small.txt", CorpusSettings(), LIMIT)
        assert not large.done()  # the large lane was busy all along
        _same(sample.corpus, load_sample("english", settings))
        _same(upload.corpus, build_corpus(data, "small.txt", CorpusSettings(), limits=APP_LIMITS))
        assert corpus_worker.recycle_idle_workers()  # the small lane built texts: it gets a fresh worker
    finally:
        release.touch()
        for lane in corpus_worker._pools.values():
            stop_workers(lane)
    assert large.result(timeout=60) is True


def test_a_queued_build_says_how_many_are_ahead_of_it(tmp_path):
    """Until a worker starts it, a build reports its place: the builds of its lane submitted before it
    and not finished (the third of three 5 MB uploads at once waited 40-55 s saying nothing)."""
    lane = BuildPool(1)
    release = tmp_path / "release"
    try:
        busy = lane._executor.submit(wait_for, str(release))  # the worker is taken
        text = sample_text("english")[:5000].encode()
        first = lane.submit(("upload", "q1"), "upload", (text, "q1.txt", CorpusSettings()), LIMIT)
        seen, built = [], []
        second = threading.Thread(target=lambda: built.append(lane.build(
            ("upload", "q2"), "upload", (text, "q2.txt", CorpusSettings()), LIMIT,
            progress=lambda fraction, stage, ahead=None: seen.append((stage, ahead)))))
        second.start()
        while not seen:
            second.join(0.05)
        assert seen[0] == ("queued", 1)  # the first upload is ahead of it
        assert lane.ahead_of(first[0]) == 0
        release.touch()
        second.join(300)
        assert first[1].result(timeout=300).corpus.n_tokens > 0 and built[0].corpus.n_tokens > 0
        assert all(ahead in (0, 1) for stage, ahead in seen if stage == "queued")
    finally:
        release.touch()
        stop_workers(lane)
    assert busy.result(timeout=60) is True
