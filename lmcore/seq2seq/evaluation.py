"""The bottleneck experiment: exact-match accuracy and per-token log-likelihood vs source length.

Exact match: greedy output ŷ (up to </s>) equals y. Per-token log-likelihood:
(1/(T+1)) Σ_{t=1}^{T+1} log P(y_t | y_<t, x) with y_{T+1} = </s>, under teacher forcing.
Both on held-out sources only.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from lmcore.seq2seq.model import Seq2Seq
from lmcore.seq2seq.tasks import make_batch, sample_pairs
from lmcore.seq2seq.vocab import BOS_ID, EOS_ID, PAD_ID, decode


@torch.no_grad()
def greedy_outputs(model: Seq2Seq, sources: Sequence[Sequence[str]], max_steps: int) -> list[list[str]]:
    """Greedy decoding ŷ_t = argmax P(· | ŷ_<t, x), batched over the sources."""
    batch = make_batch([(x, []) for x in sources])
    enc = model.encode(batch.src, batch.src_len)
    state = model.initial_state(enc)
    prev = torch.full((len(sources),), BOS_ID)
    outputs = []
    for _ in range(max_steps):
        logits, state, _ = model.step(prev, state, enc)
        prev = logits.argmax(-1)
        outputs.append(prev)
        if bool((torch.stack(outputs, 1) == EOS_ID).any(1).all()):
            break
    return [decode(row) for row in torch.stack(outputs, 1).tolist()]


@torch.no_grad()
def token_logprobs(model: Seq2Seq, pairs: Sequence[tuple[Sequence[str], Sequence[str]]]
                   ) -> list[list[float]]:
    """log P(y_t | y_<t, x) for t = 1 … T+1 (the last one is </s>), per pair."""
    batch = make_batch(pairs)
    logprobs, _ = model(batch.src, batch.src_len, batch.tgt_in)
    picked = logprobs.gather(-1, batch.tgt_out[..., None])[..., 0]
    mask = batch.tgt_out != PAD_ID
    return [row[m].tolist() for row, m in zip(picked, mask)]


@dataclass(frozen=True)
class LengthResult:
    length: int
    accuracy: float
    token_loglik: float
    n: int


def evaluate_by_length(model: Seq2Seq, task: str, lengths: Sequence[int], n: int = 200,
                       seed: int = 1234) -> list[LengthResult]:
    """Accuracy and mean per-token log-likelihood on ``n`` held-out examples per source length."""
    rng = np.random.default_rng(seed)
    results = []
    for length in lengths:
        pairs = sample_pairs(task, n, [length], rng, heldout=True)
        outputs = greedy_outputs(model, [x for x, _ in pairs], max_steps=2 * length + 4)
        accuracy = float(np.mean([out == list(y) for out, (_, y) in zip(outputs, pairs)]))
        lps = token_logprobs(model, pairs)
        loglik = float(np.mean([np.mean(lp) for lp in lps]))
        results.append(LengthResult(length, accuracy, loglik, n))
    return results
