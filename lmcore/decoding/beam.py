"""Beam search batched over the beam, recording the whole search tree.

At step t every live hypothesis :math:`y_{<t}` is extended by every token w with score
:math:`s(y_{<t} w) = s(y_{<t}) + \\log P(w \\mid y_{<t}, x)`; the best ``k - (#finished)``
candidates of the step are kept (all have length t, so raw and length-normalised rankings agree),
the others are pruned. A kept candidate ending with the end token is finished and leaves the beam.
The search stops when the beam is empty or at ``max_len``; the n-best list ranks the finished
hypotheses (the live ones if none finished) by :math:`s(y) / |y|^{\\alpha}`.

Per step: one scorer call for all n hypotheses, one batched ``topk`` of width w = (k − #finished) +
``pruned_per_parent`` over the rows of the (n × |V|) log-prob matrix (the step's survivors and every
recorded pruned child are among their row's w best tokens, since adding s(y_<t) does not reorder a
row), then one ``topk`` over the n·w candidate sums: no Python loop over the vocabulary.
"""
from __future__ import annotations

import heapq
import math

from lmcore.decoding.scorers import Prefix, Scorer, as_logprob_tensor
from lmcore.decoding.tree import FINISHED, KEPT, PRUNED, Hypothesis, SearchTree, normalised_score


def beam_search(score: Scorer, beam_width: int, max_len: int, end_id: int | None = None,
                alpha: float = 0.0, pruned_per_parent: int | None = None) -> SearchTree:
    """Beam search of width ``beam_width``; returns the tree (with ``tree.nbest`` sorted best first).

    ``pruned_per_parent`` caps how many pruned children are recorded per expanded hypothesis
    (the best ones; ``None`` records them all, fine for small vocabularies). ``end_id`` defaults
    to the scorer's own ``end_id``.
    """
    end_id = getattr(score, "end_id", None) if end_id is None else end_id
    if beam_width < 1 or max_len < 1:
        raise ValueError("beam_width and max_len must be >= 1")
    if pruned_per_parent is not None and pruned_per_parent < 0:
        raise ValueError("pruned_per_parent must be >= 0 or None")
    tree = SearchTree()
    alive: list[int] = [0]
    prefixes: list[Prefix] = [()]
    alive_scores: list[float] = [0.0]
    finished: list[int] = []
    for _ in range(max_len):
        slots = beam_width - len(finished)
        if slots <= 0 or not alive:
            break
        logprobs = as_logprob_tensor(score(prefixes))
        vocab = logprobs.shape[1]
        # every candidate the step keeps or records is among its row's best ``width`` tokens
        width = vocab if pruned_per_parent is None else min(vocab, slots + pruned_per_parent)
        values, index = logprobs.topk(width, dim=1)
        row_values, row_tokens = values.tolist(), index.tolist()
        taken: list[set[int]] = [set() for _ in alive]
        new_alive, new_prefixes, new_scores = [], [], []
        for total, row, col in _best_sums(alive_scores, row_values, slots):
            taken[row].add(col)
            tok = row_tokens[row][col]
            if tok == end_id:
                finished.append(tree.add(alive[row], tok, row_values[row][col], FINISHED))
            else:
                new_alive.append(tree.add(alive[row], tok, row_values[row][col], KEPT))
                new_prefixes.append(prefixes[row] + (tok,))
                new_scores.append(total)
        _record_pruned(tree, alive, row_values, row_tokens, taken, pruned_per_parent)
        alive, prefixes, alive_scores = new_alive, new_prefixes, new_scores
    tree.nbest = _ranked(tree, finished or alive, alpha)
    return tree


def _best_sums(offsets: list[float], rows: list[list[float]], count: int) -> list[tuple[float, int, int]]:
    """The ``count`` largest finite offsets[r] + rows[r][c] as (sum, r, c), largest first.

    Each row is sorted in decreasing order, so a k-way merge (a heap holding each row's next
    column) finds them in O(count · log n) without forming all the sums.
    """
    heap = [(-(off + vals[0]), r, 0) for r, (off, vals) in enumerate(zip(offsets, rows)) if vals]
    heapq.heapify(heap)
    out: list[tuple[float, int, int]] = []
    while heap and len(out) < count:
        neg, r, c = heapq.heappop(heap)
        if neg == math.inf:  # −inf: only impossible candidates are left
            break
        out.append((-neg, r, c))
        if c + 1 < len(rows[r]):
            heapq.heappush(heap, (-(offsets[r] + rows[r][c + 1]), r, c + 1))
    return out


def _record_pruned(tree: SearchTree, parents: list[int], row_values: list[list[float]],
                   row_tokens: list[list[int]], taken: list[set[int]], per_parent: int | None) -> None:
    """Add each parent's best (``per_parent``, or all) candidates of this step that were not kept."""
    ids: list[int] = []
    tokens: list[int] = []
    logprobs: list[float] = []
    for parent, vals, toks, cols in zip(parents, row_values, row_tokens, taken):
        stop = len(vals) if per_parent is None else min(len(vals), per_parent + len(cols))
        pruned = [c for c in range(stop) if c not in cols and vals[c] != -math.inf][:per_parent]
        ids += [parent] * len(pruned)
        tokens += [toks[c] for c in pruned]
        logprobs += [vals[c] for c in pruned]
    tree.add_many(ids, tokens, logprobs, PRUNED)


def _ranked(tree: SearchTree, nodes: list[int], alpha: float) -> list[Hypothesis]:
    hyps = []
    for i in nodes:
        toks = tree.tokens(i)
        hyps.append(Hypothesis(toks, tree.score[i], normalised_score(tree.score[i], len(toks), alpha),
                               tree.state[i] == FINISHED, i))
    return sorted(hyps, key=lambda h: -h.normalised)
