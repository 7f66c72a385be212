"""Rebuild the shipped seq2seq models: ``python assets/seq2seq/make_pretrained.py [task-attention ...]``.

Deterministic (seeded, one torch thread per model); writes assets/seq2seq/<task>-<attention>.pt
with float16 weights, then measures each reloaded model's bottleneck curve (accuracy and per-token
log-likelihood vs source length on ``EVAL_N`` held-out examples per length) into
assets/seq2seq/evaluation.json, which the seq2seq page shows without decoding anything.

``--eval-only``: measure the shipped files again without retraining them.
"""
from __future__ import annotations

import json
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import torch  # noqa: E402

from lmcore.seq2seq.evaluation import evaluate_by_length  # noqa: E402
from lmcore.seq2seq.model import Seq2SeqConfig  # noqa: E402
from lmcore.seq2seq.pretrained import (  # noqa: E402
    EVAL_N, EVAL_SEED, EVALUATION, RECIPES, asset_path, load_model, save_model, weights_digest,
)
from lmcore.seq2seq.training import train  # noqa: E402


def build(key: tuple[str, str], retrain: bool = True) -> tuple[str, dict]:
    """Train (unless ``retrain`` is False) and measure one model; returns its evaluation entry."""
    torch.set_num_threads(1)  # a script of its own: the same weights on any machine size
    task, attention = key
    recipe = RECIPES[key]
    if retrain:
        model = train(Seq2SeqConfig(attention), recipe,
                      progress=lambda p: print(f"{task}-{attention} step {p.step} loss {p.train_loss:.4f}",
                                               flush=True) if p.step % 500 == 0 else None)
        save_model(model, recipe, asset_path(task, attention))
    reloaded, _ = load_model(asset_path(task, attention))
    rows = evaluate_by_length(reloaded, task, range(recipe.min_len, recipe.max_len + 1), EVAL_N, EVAL_SEED)
    entry = {"weights": weights_digest(asset_path(task, attention)),
             "rows": [[r.length, r.accuracy, round(r.token_loglik, 6), r.n] for r in rows]}
    return f"{task}-{attention}", entry


def _build(args: tuple[tuple[str, str], bool]) -> tuple[str, dict]:
    return build(*args)


if __name__ == "__main__":
    names = [a for a in sys.argv[1:] if not a.startswith("--")]
    retrain = "--eval-only" not in sys.argv
    wanted = [tuple(a.split("-")) for a in names] or list(RECIPES)
    old = json.loads(EVALUATION.read_text()) if EVALUATION.exists() else {}
    models = old.get("models", {}) if (old.get("n"), old.get("seed")) == (EVAL_N, EVAL_SEED) else {}
    with ProcessPoolExecutor(max_workers=2) as pool:
        for name, entry in pool.map(_build, [(key, retrain) for key in wanted]):
            models[name] = entry
            print(name + ": " + " ".join(f"m={length}:{acc:.3f}" for length, acc, _, _ in entry["rows"]), flush=True)
    entries = ",\n".join(f'  "{name}": {{"weights": "{entry["weights"]}", "rows": [\n'
                          + ",\n".join("   " + json.dumps(row) for row in entry["rows"]) + "]}"
                          for name, entry in sorted(models.items()))
    EVALUATION.write_text(f'{{"n": {EVAL_N}, "seed": {EVAL_SEED}, "models": {{\n{entries}}}}}\n', encoding="utf-8")
