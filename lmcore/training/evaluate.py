"""Perplexity of a trained recurrent LM on whole sentences (zero state at each ``<s>``).

PPL = exp(−(1/N) Σ log P(x(t+1) | x(≤t))), the notes' definition, where N counts every predicted
symbol including one ``</s>`` per sentence. For char-level models the per-token figure divides the
same total log-probability by the number of corpus tokens (+1 ``</s>`` per sentence), which makes it
comparable with word-level and n-gram perplexities.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import torch
import torch.nn.functional as F

from lmcore.training.batches import IGNORE, length_batches
from lmcore.training.model import RecurrentLM
from lmcore.training.tokens import SymbolTable


@dataclass(frozen=True)
class Score:
    """Total negative log-likelihood (nats) and the counts it is averaged over."""

    nll: float
    n_symbols: int
    n_tokens: int

    @property
    def token_ppl(self) -> float:
        """Perplexity per corpus token, ``</s>`` counted (comparable across models)."""
        return math.exp(self.nll / max(self.n_tokens, 1))


@torch.no_grad()
def score_sentences(model: RecurrentLM, table: SymbolTable, sentences: Sequence[Sequence[str]],
                    batch_size: int = 64) -> Score:
    """Sum of −log P over the sentences, each from the zero state, in eval mode (no dropout)."""
    was_training = model.training
    model.eval()
    encoded = [table.encode(s) for s in sentences]
    nll = 0.0
    for batch in length_batches(encoded, batch_size, table.bos_id):
        logits, _ = model(batch.inputs)
        nll += float(F.cross_entropy(logits.reshape(-1, logits.shape[-1]), batch.targets.reshape(-1),
                                     ignore_index=IGNORE, reduction="sum"))
    model.train(was_training)
    n_symbols = sum(len(ids) for ids in encoded)
    n_tokens = sum(len(s) + 1 for s in sentences)
    return Score(nll, n_symbols, n_tokens)
