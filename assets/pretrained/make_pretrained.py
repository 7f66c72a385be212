"""Rebuild the pretrained recurrent LMs shipped for the built-in corpora (LSTM page, instant first load).

    python assets/pretrained/make_pretrained.py            # all built-in corpora
    python assets/pretrained/make_pretrained.py english    # one corpus

Each corpus is loaded exactly as the sidebar loads it by default (``lmcore.samples.load_sample(name)``),
so its ``corpus.key`` matches; each model uses the page's default configuration
(``lmcore.training.config.TrainConfig()`` with only the cell changed) and is saved as
``<corpus.key>__<config.key()>.pt`` (weights in float16). Training is seeded and single-threaded,
hence reproducible. If a corpus text or the sidebar defaults change, the key changes: run this again
(tests/test_page_lstm.py checks that every shipped file matches the current built-in corpora).
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from lmcore.samples import SAMPLES, load_sample  # noqa: E402
from lmcore.training.comparison import neural_perplexity  # noqa: E402
from lmcore.training.config import TrainConfig  # noqa: E402
from lmcore.training.loop import train_sentences  # noqa: E402
from lmcore.training.persist import PRETRAINED_DIR, from_bytes, save_pretrained  # noqa: E402

# GRUs only for the small synthetic corpus: the shipped files stay a few MB (train the others on the page).
CELLS_FOR = {"english": ("lstm", "rnn"), "chinese": ("lstm", "rnn"), "synthetic": ("lstm", "rnn", "gru")}


def build(name: str) -> list[dict]:
    corpus = load_sample(name)
    rows = []
    for cell in CELLS_FOR[name]:
        start = time.perf_counter()
        lm = train_sentences(corpus.mapped("train"), corpus.mapped("valid"), corpus.vocab.itos,
                             TrainConfig(cell=cell), corpus_key=corpus.key)
        path = save_pretrained(lm)
        shipped = from_bytes(path.read_bytes())  # what the page will load (float16 weights)
        rows.append({"corpus": name, "key": corpus.key, "cell": cell, "file": path.name,
                     "bytes": path.stat().st_size, "seconds": round(time.perf_counter() - start, 1),
                     "valid_ppl": round(neural_perplexity(shipped, corpus, "valid"), 3),
                     "test_ppl": round(neural_perplexity(shipped, corpus, "test"), 3)})
        print(json.dumps(rows[-1]), flush=True)
    return rows


def main(names: list[str]) -> None:
    manifest_path = PRETRAINED_DIR / "manifest.json"
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else []
    for name in names:
        for row in manifest:  # drop the files of an older version of this corpus
            if row["corpus"] == name:
                (PRETRAINED_DIR / row["file"]).unlink(missing_ok=True)
        manifest = [row for row in manifest if row["corpus"] != name] + build(name)
    manifest_path.write_text(json.dumps(sorted(manifest, key=lambda r: (r["corpus"], r["cell"])), indent=1) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:] or list(SAMPLES))
