"""The clipping lab's shipped logs: present for every built-in corpus, equal to a fresh run, small."""
from dataclasses import replace

import numpy as np
import pytest
import torch

from lmcore.recurrent.clip_lab import DEFAULT, LEARNING_RATES, LOG_DIR, THRESHOLDS, in_grid, log_path, shipped_logs
from lmcore.recurrent.clip_run import sgd_run
from lmcore.samples import SAMPLES, load_sample

torch.set_num_threads(1)  # as assets/pretrained/make_clip_logs.py ran them


@pytest.mark.parametrize("name", SAMPLES)
def test_every_grid_point_is_shipped_for_the_built_in_corpora(name):
    key = load_sample(name).key
    for lr in LEARNING_RATES:
        for threshold in THRESHOLDS:
            logs = shipped_logs(key, replace(DEFAULT, lr=lr, threshold=threshold))
            assert logs is not None, (name, lr, threshold)
            plain, clipped = logs["unclipped"], logs["clipped"]
            ran = np.isfinite(clipped.grad_norm)
            assert np.array_equal(clipped.clipped[ran], clipped.grad_norm[ran] > threshold)
            assert not plain.clipped.any() and plain.threshold is None and clipped.threshold == threshold


def test_a_shipped_run_equals_a_fresh_one():
    corpus = load_sample("synthetic")
    for settings, threshold, name in ((DEFAULT, None, "unclipped"), (replace(DEFAULT, lr=8.0, threshold=0.5), 0.5, "clipped")):
        fresh = sgd_run(corpus.mapped("train"), corpus.vocab.itos, settings, threshold)
        shipped = shipped_logs(corpus.key, settings)[name]
        np.testing.assert_allclose(shipped.loss, fresh.loss, rtol=1e-6)
        np.testing.assert_allclose(shipped.grad_norm, fresh.grad_norm, rtol=1e-6)
        assert shipped.diverged_at == fresh.diverged_at and np.array_equal(shipped.clipped, fresh.clipped)


def test_points_outside_the_grid_are_not_shipped():
    key = load_sample("english").key
    assert not in_grid(replace(DEFAULT, lr=3.0)) and shipped_logs(key, replace(DEFAULT, lr=3.0)) is None
    assert shipped_logs(key, replace(DEFAULT, hidden=64)) is None  # another network: not these runs
    assert shipped_logs("no-such-corpus", DEFAULT) is None


def test_the_shipped_logs_are_small():
    files = [log_path(load_sample(name).key) for name in SAMPLES]
    assert all(f.parent == LOG_DIR for f in files)
    assert sum(f.stat().st_size for f in files) < 150_000
