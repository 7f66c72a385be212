"""Attention over the encoder states h_1 … h_m for the decoder query s^(t-1).

Scores e_j (dot: e_j = s^(t-1)·h_j; additive: e_j = v^T tanh(W_q s^(t-1) + W_k h_j)),
weights α = softmax(e) over the real (unpadded) source positions, context c_t = Σ_j α_j h_j.
"""
from __future__ import annotations

import torch
from torch import nn

ATTENTIONS: tuple[str, ...] = ("none", "dot", "additive")


class DotScore(nn.Module):
    """e_j = s · h_j."""

    def forward(self, query: torch.Tensor, keys: torch.Tensor) -> torch.Tensor:
        return torch.einsum("bh,bmh->bm", query, keys)


class AdditiveScore(nn.Module):
    """e_j = v^T tanh(W_q s + W_k h_j) (Bahdanau)."""

    def __init__(self, hidden: int) -> None:
        super().__init__()
        self.w_query = nn.Linear(hidden, hidden, bias=False)
        self.w_key = nn.Linear(hidden, hidden)
        self.v = nn.Linear(hidden, 1, bias=False)

    def forward(self, query: torch.Tensor, keys: torch.Tensor) -> torch.Tensor:
        return self.v(torch.tanh(self.w_query(query)[:, None] + self.w_key(keys)))[..., 0]


def attend(scores: torch.Tensor, keys: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(context c = Σ_j α_j h_j of shape (B, H), weights α of shape (B, m)); ``mask`` is True at
    real source positions, padded positions get α = 0."""
    weights = torch.softmax(scores.masked_fill(~mask, float("-inf")), dim=-1)
    return torch.einsum("bm,bmh->bh", weights, keys), weights
