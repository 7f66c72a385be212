"""Rebuild the shipped seq2seq models: ``python assets/seq2seq/make_pretrained.py [task-attention ...]``.

Deterministic (seeded, one torch thread per model); writes assets/seq2seq/<task>-<attention>.pt
with float16 weights, and prints accuracy vs source length on held-out examples.
"""
from __future__ import annotations

import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from lmcore.seq2seq.evaluation import evaluate_by_length  # noqa: E402
from lmcore.seq2seq.model import Seq2SeqConfig  # noqa: E402
from lmcore.seq2seq.pretrained import RECIPES, asset_path, load_model, save_model  # noqa: E402
from lmcore.seq2seq.training import train  # noqa: E402


def build(key: tuple[str, str]) -> str:
    task, attention = key
    recipe = RECIPES[key]
    model = train(Seq2SeqConfig(attention), recipe,
                  progress=lambda p: print(f"{task}-{attention} step {p.step} loss {p.train_loss:.4f}",
                                           flush=True) if p.step % 500 == 0 else None)
    save_model(model, recipe, asset_path(task, attention))
    reloaded, _ = load_model(asset_path(task, attention))
    lengths = range(recipe.min_len, recipe.max_len + 1)
    rows = evaluate_by_length(reloaded, task, lengths)
    return f"{task}-{attention}: " + " ".join(f"m={r.length}:{r.accuracy:.3f}" for r in rows)


if __name__ == "__main__":
    wanted = [tuple(a.split("-")) for a in sys.argv[1:]] or list(RECIPES)
    with ProcessPoolExecutor(max_workers=2) as pool:
        for line in pool.map(build, wanted):
            print(line, flush=True)
