"""Beam search (k = 10, max length 50, vocabulary 10,000, a fixed random GRU language model):
``beam_search``, which records the search tree (kept, finished and the 2 best pruned children of every
expanded hypothesis), against peers a competent user would write that return only the n-best list.

- ``topk_loop``: one batched scorer call per step, then a loop over the hypotheses with one
  ``torch.topk(k − #finished)`` per hypothesis and ``heapq.nlargest`` over the k·k candidates;
- ``flat_topk``: one batched scorer call, then one ``topk`` over the flattened (k × |V|) matrix of
  s(y_<t) + log P(w | y_<t) (the usual vectorised beam search).

All use the same scorer (``RecurrentScorer``: one batched GRU step per beam step, with a fresh cache for
every run) and the same network. The scorer's own time is measured and subtracted, so ``*_search_ms`` is
the cost of the search itself; ``*_total_ms`` includes the network. ``*_search_cpu_ms`` is the same
search cost in this thread's CPU time, which time spent waiting for a core does not inflate. One thread,
in this process, in alternating rounds (the order rotates every round). The machine is shared: read the
min (best case) next to the median. ``ratio_*`` = peer time / our time (> 1: ours is faster). The n-best lists are
compared: same token sequences (``same_nbest_*``) and ``max_rel_diff_*`` of their log-probabilities.
Run: ``python bench/beam_search.py``.
"""
from __future__ import annotations

import heapq
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from lmcore.decoding import RecurrentScorer, beam_search  # noqa: E402

VOCAB, WIDTH, MAX_LEN, EMB, HIDDEN, END, PRUNED_PER_PARENT = 10_000, 10, 50, 32, 64, 0, 2
ROUNDS = 15


class TimedScorer:
    """Wraps a scorer and accumulates the wall and CPU time spent inside it."""

    def __init__(self, scorer: RecurrentScorer) -> None:
        self.scorer, self.seconds, self.cpu_seconds = scorer, 0.0, 0.0

    def __call__(self, prefixes):
        start, cpu = time.perf_counter(), time.thread_time()
        out = self.scorer(prefixes)
        self.seconds += time.perf_counter() - start
        self.cpu_seconds += time.thread_time() - cpu
        return out


def gru_step() -> Callable:
    """A fixed random GRU LM: embedding → GRU → linear over VOCAB tokens."""
    g = torch.Generator().manual_seed(0)
    emb, gru = torch.nn.Embedding(VOCAB, EMB), torch.nn.GRU(EMB, HIDDEN, batch_first=True)
    out = torch.nn.Linear(HIDDEN, VOCAB)
    with torch.no_grad():
        for p in [*emb.parameters(), *gru.parameters(), *out.parameters()]:
            p.copy_(torch.randn(p.shape, generator=g) * (1.0 if p.dim() == 2 and p.shape[0] == VOCAB else 0.3))

    def step(tokens, h):
        y, h = gru(emb(tokens)[:, None], h)
        return out(y[:, 0]), h

    return step


STEP = gru_step()


def fresh_scorer() -> TimedScorer:
    return TimedScorer(RecurrentScorer(STEP, torch.zeros(1, 1, HIDDEN), first_token=1,
                                       vocab=[str(i) for i in range(VOCAB)], end_id=END, batch_dim=1))


def ours(score) -> list[tuple[float, tuple[int, ...]]]:
    tree = beam_search(score, WIDTH, MAX_LEN, END, pruned_per_parent=PRUNED_PER_PARENT)
    ours.nodes = len(tree)  # type: ignore[attr-defined]
    return [(h.logprob, h.tokens) for h in tree.nbest]


def topk_loop(score) -> list[tuple[float, tuple[int, ...]]]:
    beam: list[tuple[float, tuple[int, ...]]] = [(0.0, ())]
    finished: list[tuple[float, tuple[int, ...]]] = []
    for _ in range(MAX_LEN):
        slots = WIDTH - len(finished)
        if slots <= 0 or not beam:
            break
        logprobs = score([y for _, y in beam])
        candidates = []
        for (s, y), row in zip(beam, logprobs):
            values, tokens = torch.topk(row, slots)
            candidates += [(s + v, y + (t,)) for v, t in zip(values.tolist(), tokens.tolist())]
        beam = []
        for s, y in heapq.nlargest(slots, candidates, key=lambda c: c[0]):
            (finished if y[-1] == END else beam).append((s, y))
    return sorted(finished or beam, key=lambda c: -c[0])


def flat_topk(score) -> list[tuple[float, tuple[int, ...]]]:
    beam: list[tuple[int, ...]] = [()]
    scores = torch.zeros(1, dtype=torch.float64)
    finished: list[tuple[float, tuple[int, ...]]] = []
    for _ in range(MAX_LEN):
        slots = WIDTH - len(finished)
        if slots <= 0 or not beam:
            break
        logprobs = score(beam)
        top, flat = (scores[:, None] + logprobs).view(-1).topk(slots)
        rows, tokens = (flat // VOCAB).tolist(), (flat % VOCAB).tolist()
        new_beam, new_scores = [], []
        for s, r, t in zip(top.tolist(), rows, tokens):
            if t == END:
                finished.append((s, beam[r] + (t,)))
            else:
                new_beam.append(beam[r] + (t,))
                new_scores.append(s)
        beam, scores = new_beam, torch.tensor(new_scores, dtype=torch.float64)
    return sorted(finished or list(zip(scores.tolist(), beam)), key=lambda c: -c[0])


def main() -> None:
    torch.set_num_threads(1)
    methods = {"ours": ours, "topk_loop": topk_loop, "flat_topk": flat_topk}
    results = {name: fn(fresh_scorer()) for name, fn in methods.items()}  # also warms up
    total: dict[str, list[float]] = {name: [] for name in methods}
    search: dict[str, list[float]] = {name: [] for name in methods}
    search_cpu: dict[str, list[float]] = {name: [] for name in methods}
    names = list(methods)
    for r in range(ROUNDS):
        for name in names[r % len(names):] + names[: r % len(names)]:
            score = fresh_scorer()
            start, cpu = time.perf_counter(), time.thread_time()
            methods[name](score)
            elapsed, cpu = time.perf_counter() - start, time.thread_time() - cpu
            total[name].append(elapsed)
            search[name].append(elapsed - score.seconds)
            search_cpu[name].append(cpu - score.cpu_seconds)
    print(f"vocab_size: {VOCAB}")
    print(f"beam_width: {WIDTH}")
    print(f"max_len: {MAX_LEN}")
    print(f"ours_tree_nodes: {ours.nodes}")  # type: ignore[attr-defined]
    print(f"rounds: {ROUNDS}")
    ref = results["ours"]
    for name in ("topk_loop", "flat_topk"):
        got = results[name]
        same = [y for _, y in got] == [y for _, y in ref]
        diff = max(abs(a - b) / abs(b) for (a, _), (b, _) in zip(got, ref)) if same else float("nan")
        print(f"same_nbest_{name}: {same}")
        print(f"max_rel_diff_{name}: {diff:.2e}")
    kinds = (("search", search), ("search_cpu", search_cpu), ("total", total))
    for kind, data in kinds:
        for name in methods:
            print(f"{name}_{kind}_ms_median: {1e3 * statistics.median(data[name]):.1f}")
            print(f"{name}_{kind}_ms_min: {1e3 * min(data[name]):.1f}")
    for kind, data in kinds:
        for name in ("topk_loop", "flat_topk"):
            print(f"ratio_{kind}_{name}_median: {statistics.median(data[name]) / statistics.median(data['ours']):.2f}")
            print(f"ratio_{kind}_{name}_min: {min(data[name]) / min(data['ours']):.2f}")


if __name__ == "__main__":
    main()
