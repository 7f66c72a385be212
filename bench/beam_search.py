"""Beam search batched over the beam vs a per-hypothesis Python loop, on the same neural scorer.

k = 10, max length 50, vocabulary 10,000, a fixed random GRU language model. The scorer's own time
(the network's forward steps) is measured separately and subtracted, so ``*_search_ms`` is the
cost of the search itself. Run: ``python bench/beam_search.py``.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from lmcore.decoding import RecurrentScorer, beam_search  # noqa: E402
from tests.decoding_oracles import beam_search_loop  # noqa: E402

VOCAB, WIDTH, MAX_LEN, EMB, HIDDEN, END = 10_000, 10, 50, 32, 64, 0


class TimedScorer:
    """Wraps a scorer and accumulates the time spent inside it."""

    def __init__(self, scorer):
        self.scorer, self.seconds, self.calls = scorer, 0.0, 0

    def __call__(self, prefixes):
        start = time.perf_counter()
        out = self.scorer(prefixes)
        self.seconds += time.perf_counter() - start
        self.calls += 1
        return out


def random_gru_scorer(seed: int = 0) -> TimedScorer:
    torch.manual_seed(seed)
    emb, gru = torch.nn.Embedding(VOCAB, EMB), torch.nn.GRU(EMB, HIDDEN, batch_first=True)
    out = torch.nn.Linear(HIDDEN, VOCAB)

    def step(tokens, h):
        y, h = gru(emb(tokens)[:, None], h)
        return out(y[:, 0]), h

    scorer = RecurrentScorer(step, torch.zeros(1, 1, HIDDEN), first_token=1,
                             vocab=[str(i) for i in range(VOCAB)], end_id=END, batch_dim=1)
    return TimedScorer(scorer)


def main() -> None:
    torch.set_num_threads(1)
    beam_search(random_gru_scorer(), WIDTH, 3, END)  # warm-up
    batched_scorer = random_gru_scorer()
    start = time.perf_counter()
    tree = beam_search(batched_scorer, WIDTH, MAX_LEN, END, pruned_per_parent=2)
    batched_total = time.perf_counter() - start

    loop_scorer = random_gru_scorer()
    start = time.perf_counter()
    looped = beam_search_loop(loop_scorer, WIDTH, MAX_LEN, END)
    loop_total = time.perf_counter() - start

    batched_search = batched_total - batched_scorer.seconds
    loop_search = loop_total - loop_scorer.seconds
    print(f"vocab_size: {VOCAB}")
    print(f"beam_width: {WIDTH}")
    print(f"max_len: {MAX_LEN}")
    print(f"tree_nodes: {len(tree)}")
    print(f"same_best: {tree.best.tokens == looped[0].tokens}")
    print(f"batched_total_ms: {1000 * batched_total:.1f}")
    print(f"batched_scorer_ms: {1000 * batched_scorer.seconds:.1f}")
    print(f"batched_search_ms: {1000 * batched_search:.1f}")
    print(f"loop_total_ms: {1000 * loop_total:.1f}")
    print(f"loop_scorer_ms: {1000 * loop_scorer.seconds:.1f}")
    print(f"loop_search_ms: {1000 * loop_search:.1f}")
    print(f"speedup_total: {loop_total / batched_total:.1f}")
    print(f"speedup_search: {loop_search / batched_search:.1f}")
    print(f"batched_search_within_100ms: {batched_search <= 0.1}")


if __name__ == "__main__":
    main()
