"""Beam search batched over the beam, recording the whole search tree.

At step t every live hypothesis :math:`y_{<t}` is extended by every token w with score
:math:`s(y_{<t} w) = s(y_{<t}) + \\log P(w \\mid y_{<t}, x)`; the best ``k - (#finished)``
candidates of the step are kept (all have length t, so raw and length-normalised rankings agree),
the others are pruned. A kept candidate ending with the end token is finished and leaves the beam.
The search stops when the beam is empty or at ``max_len``; the n-best list ranks the finished
hypotheses (the live ones if none finished) by :math:`s(y) / |y|^{\\alpha}`.

One scorer call and one ``topk`` over the (n × |V|) candidate matrix per step: no Python loop over
hypotheses or tokens.
"""
from __future__ import annotations

import torch

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
    tree = SearchTree()
    alive: list[int] = [0]
    prefixes: list[Prefix] = [()]
    alive_scores = torch.zeros(1, dtype=torch.float64)
    finished: list[int] = []
    for _ in range(max_len):
        slots = beam_width - len(finished)
        if slots <= 0 or not alive:
            break
        logprobs = as_logprob_tensor(score(prefixes))
        vocab = logprobs.shape[1]
        candidates = alive_scores[:, None] + logprobs
        top_scores, top_index = candidates.view(-1).topk(min(slots, candidates.numel()))
        finite = torch.isfinite(top_scores)
        top_rows = (top_index[finite] // vocab).tolist()
        top_tokens = (top_index[finite] % vocab).tolist()
        chosen = set(zip(top_rows, top_tokens))
        token_lp = logprobs[top_index[finite] // vocab, top_index[finite] % vocab].tolist()
        new_alive, new_prefixes, new_scores = [], [], []
        for row, tok, lp in zip(top_rows, top_tokens, token_lp):
            ended = tok == end_id
            node = tree.add(alive[row], tok, lp, FINISHED if ended else KEPT)
            if ended:
                finished.append(node)
            else:
                new_alive.append(node)
                new_prefixes.append(prefixes[row] + (tok,))
                new_scores.append(tree.score[node])
        _record_pruned(tree, alive, logprobs, chosen, pruned_per_parent, slots)
        alive, prefixes = new_alive, new_prefixes
        alive_scores = torch.tensor(new_scores, dtype=torch.float64)
    tree.nbest = _ranked(tree, finished or alive, alpha)
    return tree


def _record_pruned(tree: SearchTree, parents: list[int], logprobs: torch.Tensor,
                   chosen: set[tuple[int, int]], per_parent: int | None, slots: int) -> None:
    """Add the (best ``per_parent``, or all) candidates of this step that were not kept."""
    vocab = logprobs.shape[1]
    width = vocab if per_parent is None else min(vocab, per_parent + slots)
    values, index = logprobs.topk(width, dim=1)
    for row, (vals, toks) in enumerate(zip(values.tolist(), index.tolist())):
        recorded = 0
        for lp, tok in zip(vals, toks):
            if per_parent is not None and recorded >= per_parent:
                break
            if (row, tok) in chosen or lp == float("-inf"):
                continue
            tree.add(parents[row], tok, lp, PRUNED)
            recorded += 1


def _ranked(tree: SearchTree, nodes: list[int], alpha: float) -> list[Hypothesis]:
    hyps = []
    for i in nodes:
        toks = tree.tokens(i)
        hyps.append(Hypothesis(toks, tree.score[i], normalised_score(tree.score[i], len(toks), alpha),
                               tree.state[i] == FINISHED, i))
    return sorted(hyps, key=lambda h: -h.normalised)
