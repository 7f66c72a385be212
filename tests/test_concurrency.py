"""Shared structures under many threads at once, and per-run randomness (one class, one process)."""
import threading

import numpy as np
import pytest
import torch
from torch import nn

from lmcore.corpus import build_corpus
from lmcore.seeding import GeneratorDropout, build_seeded, generator, init_parameters_
from lmcore.synthetic import synthetic_text
from lmcore.training.config import TrainConfig
from lmcore.training.loop import train_sentences
from lmcore.training.registry import ShippedModels
from server.owner_models import OwnerModels
from server.sizes import nbytes
from server.store import InProcessStore

SMALL = TrainConfig(embed_dim=8, hidden_size=12, steps=12, batch_size=8, eval_every=6, report_every=3)


@pytest.fixture(scope="module")
def corpus():
    return build_corpus(synthetic_text(300)[0], "synthetic")


def _train(corpus, config):
    return train_sentences(corpus.mapped("train"), corpus.mapped("valid"), corpus.vocab.itos, config, None, corpus.key)


def _run_threads(target, n):
    failures = []

    def guarded(i):
        try:
            target(i)
        except Exception as exc:  # collected: an exception in any thread fails the test
            failures.append(exc)

    threads = [threading.Thread(target=guarded, args=(i,)) for i in range(n)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return failures


def test_two_runs_at_once_with_the_same_seed_equal_a_run_alone(corpus):
    config = SMALL.with_(dropout=0.3, seed=7)
    alone = _train(corpus, config)
    results = {}
    failures = _run_threads(lambda i: results.__setitem__(i, _train(corpus, config)), 3)
    assert failures == []
    expected = alone.model.state_dict()
    for lm in results.values():
        for name, tensor in lm.model.state_dict().items():
            assert torch.equal(tensor, expected[name]), name
    assert not torch.equal(_train(corpus, config.with_(seed=8)).model.embed.weight, alone.model.embed.weight)


def test_owner_models_under_concurrent_writers_and_readers_keep_owners_apart(corpus):
    lm = _train(corpus, SMALL)
    store, shipped = InProcessStore(nbytes(lm) * 50), ShippedModels(loader=lambda key, config: None)

    def worker(i):
        models = OwnerModels(store, shipped, f"owner{i % 5}")
        for seed in range(40):
            model = type(lm)(lm.model, lm.table, SMALL.with_(seed=seed), corpus_key=f"corpus{i % 5}")
            models.put(model)
            for found in models.for_corpus(f"corpus{i % 5}"):
                assert found.corpus_key == f"corpus{i % 5}"
            models.pick(f"corpus{i % 5}", "lstm")
            assert models.for_corpus("corpus-of-nobody") == []

    assert _run_threads(worker, 10) == []
    assert store.nbytes <= store.budget
    for i in range(5):  # every owner sees only its own corpus's models
        models = OwnerModels(store, shipped, f"owner{i}")
        assert {m.corpus_key for m in models.for_corpus(f"corpus{i}")} <= {f"corpus{i}"}
        assert models.for_corpus(f"corpus{(i + 1) % 5}") == []
        other = OwnerModels(store, shipped, f"owner{(i + 1) % 5}")
        assert other.for_corpus(f"corpus{i}") == []


def test_seeded_initialisation_follows_torch_defaults_without_the_global_rng():
    torch.manual_seed(0)
    before = torch.random.get_rng_state()
    model = build_seeded(lambda: nn.Sequential(nn.Embedding(50, 32), nn.LSTM(32, 64), nn.Linear(64, 400)), 3)
    assert torch.equal(torch.random.get_rng_state(), before)
    emb, lstm, lin = model[0].weight, model[1].weight_hh_l0, model[2].weight
    assert abs(float(emb.std()) - 1.0) < 0.05  # N(0, 1)
    for tensor, bound in ((lstm, 1 / 64 ** 0.5), (lin, 1 / 64 ** 0.5)):
        assert float(tensor.abs().max()) <= bound and float(tensor.abs().max()) > 0.95 * bound
        torch_default = float(1 / (3 ** 0.5)) * bound  # std of U(-b, b) is b/√3
        assert abs(float(tensor.std()) - torch_default) < 0.05 * torch_default
    # the reference: torch's own reset_parameters gives the same bounds
    reference = nn.Linear(64, 400)
    assert float(reference.weight.abs().max()) <= 1 / 64 ** 0.5
    again = build_seeded(lambda: nn.Sequential(nn.Embedding(50, 32), nn.LSTM(32, 64), nn.Linear(64, 400)), 3)
    assert all(torch.equal(a, b) for a, b in zip(model.parameters(), again.parameters()))


def test_seeded_initialisation_refuses_unknown_layers():
    class Odd(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(torch.zeros(3))

    with pytest.raises(TypeError):
        init_parameters_(Odd(), generator(0))


def test_generator_dropout_is_reproducible_unbiased_and_off_in_eval():
    drop = GeneratorDropout(0.25)
    x = torch.ones(200_000)
    drop.generator = generator(5)
    a = drop(x)
    drop.generator = generator(5)
    assert torch.equal(drop(x), a)
    assert abs(float((a == 0).float().mean()) - 0.25) < 0.01 and abs(float(a.mean()) - 1.0) < 0.01
    np.testing.assert_allclose(np.unique(a.numpy()), [0.0, 1 / 0.75], rtol=1e-6)
    drop.eval()
    assert torch.equal(drop(x), x)


def test_a_corpus_nobody_shows_any_more_is_dropped_with_everything_made_from_it():
    from server.corpus_use import CorpusTracker

    store = InProcessStore(budget=1000)
    store.put("corpus:a", "A", 10, tags=["upload:a"])
    store.put("counts:a", "counts A", 10, tags=["text:a"])
    store.put("corpus:b", "B", 10, tags=["upload:b"])
    store.put("corpus:english", "E", 10)
    tracker, live = CorpusTracker(lambda: store), {"s1", "s2"}
    tracker.touch("s1", "upload:a", "text:a")
    tracker.touch("s2", "upload:a", "text:a")
    tracker.touch("s3", "upload:b")
    assert tracker.sweep(live.__contains__) == ["upload:b"]  # s3 has gone
    assert "corpus:b" not in store and "corpus:a" in store and "counts:a" in store
    live.discard("s1")
    assert tracker.sweep(live.__contains__) == []  # s2 still shows upload a
    tracker.touch("s2", "upload:c")  # s2 switched to another upload: it keeps a while connected
    assert tracker.sweep(live.__contains__) == []
    live.discard("s2")
    assert sorted(tracker.sweep(live.__contains__)) == ["text:a", "upload:a", "upload:c"]
    assert "corpus:a" not in store and "counts:a" not in store and store.get("corpus:english") == "E"
    assert store.nbytes == 10
