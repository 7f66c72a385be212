"""Padded batches of whole sentences, cut into truncated-BPTT chunks.

Every sentence starts from the zero state (as the n-gram model starts from ``<s>``): inputs are
``<s> x1 … xn`` and targets ``x1 … xn </s>``. Sentences of similar length share a batch (sorted
by length, then the batch order is shuffled), padding targets are ``IGNORE`` (no loss), and a long
batch is cut into chunks of ``bptt`` steps whose state is carried over, detached.
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import torch

IGNORE = -100  # torch.nn.functional.cross_entropy's default ignore_index


@dataclass(frozen=True)
class Batch:
    """``inputs``/``targets``: (B, L) int64; ``targets == IGNORE`` on padding."""

    inputs: torch.Tensor
    targets: torch.Tensor

    @property
    def n_targets(self) -> int:
        return int((self.targets != IGNORE).sum())

    def chunks(self, bptt: int) -> Iterator[Batch]:
        """Consecutive time slices of at most ``bptt`` steps (truncated BPTT)."""
        for start in range(0, self.inputs.shape[1], bptt):
            yield Batch(self.inputs[:, start:start + bptt], self.targets[:, start:start + bptt])


def pad_batch(encoded: Sequence[Sequence[int]], bos_id: int) -> Batch:
    """One batch from target-id lists (each ending in ``</s>``); inputs are shifted right with ``<s>``."""
    length = max(len(ids) for ids in encoded)
    inputs = torch.full((len(encoded), length), bos_id, dtype=torch.long)
    targets = torch.full((len(encoded), length), IGNORE, dtype=torch.long)
    for row, ids in enumerate(encoded):
        seq = torch.as_tensor(ids, dtype=torch.long)
        targets[row, :len(ids)] = seq
        inputs[row, 1:len(ids)] = seq[:-1]
    return Batch(inputs, targets)


def length_batches(encoded: Sequence[Sequence[int]], batch_size: int, bos_id: int) -> list[Batch]:
    """Sentences sorted by length (stable), grouped ``batch_size`` at a time and padded."""
    order = sorted(range(len(encoded)), key=lambda i: len(encoded[i]))
    groups = [order[i:i + batch_size] for i in range(0, len(order), batch_size)]
    return [pad_batch([encoded[i] for i in group], bos_id) for group in groups if group]


def shuffled_batches(encoded: Sequence[Sequence[int]], batch_size: int, bos_id: int,
                     generator: torch.Generator) -> list[Batch]:
    """One epoch of random batches: a seeded shuffle of the sentences, ``batch_size`` at a time.

    Random (not length-sorted) batches keep each gradient an unbiased estimate: batches of only
    long (or only short) sentences would push P(</s>) up and down from one step to the next.
    """
    order = torch.randperm(len(encoded), generator=generator).tolist()
    return [pad_batch([encoded[i] for i in order[k:k + batch_size]], bos_id)
            for k in range(0, len(order), batch_size)]
