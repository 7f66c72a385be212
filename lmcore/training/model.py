"""The network: embedding → dropout → one recurrent layer (nn.RNN / nn.LSTM / nn.GRU) → dropout → softmax.

RNN: h(t) = tanh(W_x x(t) + b_x + W_h h(t−1) + b_h); LSTM: the notes' gates i, f, o, c̃ with
c(t) = f(t) ⊙ c(t−1) + i(t) ⊙ c̃(t), h(t) = o(t) ⊙ tanh(c(t)); ŷ(t) = softmax(W_y h(t) + b_y).
With ``tie_weights`` W_y is the embedding matrix of the predicted symbols (Press & Wolf, 2017).
"""
from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from lmcore.seeding import GeneratorDropout

State = torch.Tensor | tuple[torch.Tensor, torch.Tensor]

_CELLS: dict[str, type[nn.Module]] = {"rnn": nn.RNN, "lstm": nn.LSTM, "gru": nn.GRU}


class RecurrentLM(nn.Module):
    """Inputs (B, L) ids over ``n_inputs`` (vocabulary + ``<s>``) → logits (B, L, ``n_outputs``)."""

    def __init__(self, cell: str, n_inputs: int, n_outputs: int, embed_dim: int, hidden_size: int,
                 dropout: float = 0.0, tie_weights: bool = False) -> None:
        super().__init__()
        if tie_weights and embed_dim != hidden_size:
            raise ValueError("tied weights need embed_dim == hidden_size")
        self.cell, self.n_outputs = cell, n_outputs
        self.embed = nn.Embedding(n_inputs, embed_dim)
        self.drop = GeneratorDropout(dropout)  # masks from the run's own generator
        kwargs = {"nonlinearity": "tanh"} if cell == "rnn" else {}
        self.rnn = _CELLS[cell](embed_dim, hidden_size, num_layers=1, batch_first=True, **kwargs)
        head = nn.Linear(hidden_size, n_outputs)
        self.out_weight = None if tie_weights else head.weight
        self.out_bias = head.bias

    def init_own_parameters_(self, generator: torch.Generator) -> None:
        """The read-out W_y, b_y as ``nn.Linear`` starts them: U(−1/√n, 1/√n), n = hidden size."""
        bound = 1.0 / math.sqrt(self.rnn.hidden_size)
        for p in (self.out_weight, self.out_bias):
            if p is not None:
                p.uniform_(-bound, bound, generator=generator)

    def output_weight(self) -> torch.Tensor:
        """W_y (n_outputs × hidden): its own matrix, or the tied embedding rows."""
        return self.embed.weight[:self.n_outputs] if self.out_weight is None else self.out_weight

    def forward(self, inputs: torch.Tensor, state: State | None = None) -> tuple[torch.Tensor, State]:
        emb = self.drop(self.embed(inputs))
        out, state = self.rnn(emb, state)
        return F.linear(self.drop(out), self.output_weight(), self.out_bias), state


def detach_state(state: State) -> State:
    """Cut the graph between BPTT chunks (truncated BPTT) but keep the values."""
    if isinstance(state, tuple):
        return tuple(s.detach() for s in state)  # type: ignore[return-value]
    return state.detach()
