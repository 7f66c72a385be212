"""Rebuild the clipping lab's shipped logs for the built-in corpora (gradients page, instant first load).

    python assets/pretrained/make_clip_logs.py            # all built-in corpora
    python assets/pretrained/make_clip_logs.py english    # one corpus

Each corpus is loaded exactly as the sidebar loads it by default (``lmcore.samples.load_sample(name)``),
so its ``corpus.key`` matches; every point of the page's grid (``lmcore.recurrent.clip_lab``:
learning rates × thresholds, the other settings at their defaults) is run with
``lmcore.recurrent.clip_run.sgd_run`` and saved as ``clip-<corpus.key>.npz``. The runs are seeded and
single-threaded; on another CPU the exploding ones are other curves (its kernels round sums differently
and the run amplifies that last bit), so tests/test_recurrent_clip_lab.py compares fresh runs with the
file where every CPU agrees (the first steps, calm runs, the course of an exploding one).
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from lmcore.recurrent.clip_lab import LOG_DIR, grid_logs, log_path, save_grid  # noqa: E402
from lmcore.samples import SAMPLES, load_sample  # noqa: E402


MANIFEST = LOG_DIR / "clip_manifest.json"


def build(name: str) -> str:
    """Run the grid on one built-in corpus and save it; the file name."""
    corpus = load_sample(name)
    start = time.perf_counter()
    path = log_path(corpus.key)
    save_grid(path, grid_logs(corpus.mapped("train"), corpus.vocab.itos))
    print(json.dumps({"corpus": name, "file": path.name, "bytes": path.stat().st_size,
                      "seconds": round(time.perf_counter() - start, 1)}), flush=True)
    return path.name


def main(names: list[str]) -> None:
    torch.set_num_threads(1)  # a script, not the app: one thread makes the runs reproducible
    manifest = json.loads(MANIFEST.read_text()) if MANIFEST.exists() else {}
    for name in names:
        new = build(name)
        old = manifest.get(name)
        if old and old != new:  # the file of an older version of this corpus
            (LOG_DIR / old).unlink(missing_ok=True)
        manifest[name] = new
        MANIFEST.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:] or list(SAMPLES))
