"""Explicit recurrent cells with full traces, in the course notes' notation (float64, torch).

Vanilla RNN:  z(t) = W_h h(t−1) + W_x x(t) + b,   h(t) = σ(z(t)),   σ ∈ {tanh, sigmoid, relu, identity}
LSTM:         i, f, o = sigmoid(W_· [h(t−1), x(t)] + b_·),  c̃ = tanh(W_c [h(t−1), x(t)] + b_c)
              c(t) = f(t) ⊙ c(t−1) + i(t) ⊙ c̃(t),   h(t) = o(t) ⊙ tanh(c(t))
GRU (torch's convention):
              r = sigmoid(W_hr h + W_xr x + b_r),   u = sigmoid(W_hu h + W_xu x + b_u)
              n = tanh(W_xn x + b_xn + r ⊙ (W_hn h + b_hn)),   h(t) = (1 − u) ⊙ n + u ⊙ h(t−1)

Inputs have shape (T, *batch, d); states (*batch, n). Traces keep every h(t) as its own tensor so
that ``retain_grad`` gives ∂J/∂h(k) for all k from one backward pass. Index convention: ``h[t]`` is
h(t) with ``h[0]`` = h(0); ``z[t]``, gates and ``c[t]`` likewise, and their index 0 entry is the
initial state (zeros for z and gates: there is no step 0).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Callable

import torch
from torch import Tensor, nn

DTYPE = torch.float64


@dataclass(frozen=True)
class Activation:
    """σ, its derivative σ' and γ = max σ' (the notes' bound uses σ1·γ)."""

    name: str
    fn: Callable[[Tensor], Tensor]
    derivative: Callable[[Tensor], Tensor]
    gamma: float


ACTIVATIONS: dict[str, Activation] = {
    "tanh": Activation("tanh", torch.tanh, lambda z: 1 - torch.tanh(z) ** 2, 1.0),
    "sigmoid": Activation(
        "sigmoid", torch.sigmoid, lambda z: torch.sigmoid(z) * (1 - torch.sigmoid(z)), 0.25
    ),
    "relu": Activation("relu", torch.relu, lambda z: (z > 0).to(z.dtype), 1.0),
    "identity": Activation("identity", lambda z: z, torch.ones_like, 1.0),
}


@dataclass
class Gate:
    """One affine map W_h h(t−1) + W_x x(t) + b (W_h: n×n, W_x: n×d, b: n)."""

    W_h: Tensor
    W_x: Tensor
    b: Tensor

    def __call__(self, h: Tensor, x: Tensor) -> Tensor:
        return h @ self.W_h.T + x @ self.W_x.T + self.b


@dataclass
class RNNWeights:
    """Vanilla RNN: h(t) = σ(W_h h(t−1) + W_x x(t) + b)."""

    W_h: Tensor
    W_x: Tensor
    b: Tensor
    activation: str = "tanh"

    @property
    def hidden_size(self) -> int:
        return self.W_h.shape[0]


@dataclass
class LSTMWeights:
    """LSTM gates i, f, o and candidate c̃ (each a :class:`Gate`)."""

    i: Gate
    f: Gate
    o: Gate
    c: Gate

    @property
    def hidden_size(self) -> int:
        return self.i.W_h.shape[0]


@dataclass
class GRUWeights:
    """GRU reset r, update u and candidate n (n's recurrent bias b_hn sits inside r ⊙ (·))."""

    r: Gate
    u: Gate
    n: Gate
    b_hn: Tensor

    @property
    def hidden_size(self) -> int:
        return self.r.W_h.shape[0]


@dataclass
class Trace:
    """Everything a cell computed: ``h[t]`` = h(t) for t = 0..T, ``z[t]`` pre-activations,
    ``gates[name][t]`` for LSTM/GRU gates (i, f, o, c̃ or r, u, n) and ``c[t]`` for the LSTM."""

    h: list[Tensor]
    z: list[Tensor] = field(default_factory=list)
    gates: dict[str, list[Tensor]] = field(default_factory=dict)
    c: list[Tensor] = field(default_factory=list)

    @property
    def T(self) -> int:
        return len(self.h) - 1

    def stacked_h(self) -> Tensor:
        """h(1..T) as one (T, *batch, n) tensor."""
        return torch.stack(self.h[1:])


def rnn_step(w: RNNWeights, h: Tensor, x: Tensor) -> tuple[Tensor, Tensor]:
    """One step: returns (z(t), h(t)) with z(t) = W_h h(t−1) + W_x x(t) + b, h(t) = σ(z(t))."""
    z = h @ w.W_h.T + x @ w.W_x.T + w.b
    return z, ACTIVATIONS[w.activation].fn(z)


def run_rnn(w: RNNWeights, x: Tensor, h0: Tensor | None = None) -> Trace:
    """The vanilla RNN over x(1..T) (shape (T, *batch, d)), h(0) = 0 unless given."""
    h = _zeros_state(w.hidden_size, x) if h0 is None else h0
    trace = Trace(h=[h], z=[torch.zeros_like(h)])
    for t in range(x.shape[0]):
        z, h = rnn_step(w, h, x[t])
        trace.z.append(z)
        trace.h.append(h)
    return trace


def lstm_step(w: LSTMWeights, h: Tensor, c: Tensor, x: Tensor) -> dict[str, Tensor]:
    """One LSTM step: gates i, f, o, c̃, then c(t) = f ⊙ c(t−1) + i ⊙ c̃ and h(t) = o ⊙ tanh c(t)."""
    i = torch.sigmoid(w.i(h, x))
    f = torch.sigmoid(w.f(h, x))
    o = torch.sigmoid(w.o(h, x))
    c_tilde = torch.tanh(w.c(h, x))
    c_new = f * c + i * c_tilde
    return {"i": i, "f": f, "o": o, "c_tilde": c_tilde, "c": c_new, "h": o * torch.tanh(c_new)}


def run_lstm(w: LSTMWeights, x: Tensor, h0: Tensor | None = None, c0: Tensor | None = None) -> Trace:
    """The LSTM over x(1..T); trace.gates holds i, f, o, c_tilde per step, trace.c the cell states."""
    h = _zeros_state(w.hidden_size, x) if h0 is None else h0
    c = torch.zeros_like(h) if c0 is None else c0
    names = ("i", "f", "o", "c_tilde")
    trace = Trace(h=[h], c=[c], gates={k: [torch.zeros_like(h)] for k in names})
    for t in range(x.shape[0]):
        step = lstm_step(w, h, c, x[t])
        h, c = step["h"], step["c"]
        trace.h.append(h)
        trace.c.append(c)
        for k in names:
            trace.gates[k].append(step[k])
    return trace


def gru_step(w: GRUWeights, h: Tensor, x: Tensor) -> dict[str, Tensor]:
    """One GRU step (torch's equations, u is torch's z 'update' gate)."""
    r = torch.sigmoid(w.r(h, x))
    u = torch.sigmoid(w.u(h, x))
    n = torch.tanh(x @ w.n.W_x.T + w.n.b + r * (h @ w.n.W_h.T + w.b_hn))
    return {"r": r, "u": u, "n": n, "h": (1 - u) * n + u * h}


def run_gru(w: GRUWeights, x: Tensor, h0: Tensor | None = None) -> Trace:
    """The GRU over x(1..T); trace.gates holds r, u, n per step."""
    h = _zeros_state(w.hidden_size, x) if h0 is None else h0
    trace = Trace(h=[h], gates={k: [torch.zeros_like(h)] for k in ("r", "u", "n")})
    for t in range(x.shape[0]):
        step = gru_step(w, h, x[t])
        h = step["h"]
        trace.h.append(h)
        for k in ("r", "u", "n"):
            trace.gates[k].append(step[k])
    return trace


CellWeights = RNNWeights | LSTMWeights | GRUWeights


def run_cell(w: CellWeights, x: Tensor) -> Trace:
    """Dispatch on the weights' type (RNN, LSTM or GRU), zero initial state."""
    if isinstance(w, RNNWeights):
        return run_rnn(w, x)
    if isinstance(w, LSTMWeights):
        return run_lstm(w, x)
    return run_gru(w, x)


def weights_from_torch(module: nn.RNN | nn.LSTM | nn.GRU, layer: int = 0) -> CellWeights:
    """Copy layer ``layer`` of a torch.nn.RNN / LSTM / GRU into explicit float64 weights.

    torch stacks the gates row-wise: LSTM (i, f, g=c̃, o), GRU (r, z=u, n); its two biases
    b_ih + b_hh add up to the notes' single b (except the GRU's b_hn, kept apart).
    """
    p = {name: getattr(module, f"{name}_l{layer}").detach().to(DTYPE).clone()
         for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")}
    W_x, W_h, b_x, b_h = p["weight_ih"], p["weight_hh"], p["bias_ih"], p["bias_hh"]
    if isinstance(module, nn.LSTM):
        gate = [Gate(W_h[k], W_x[k], b_x[k] + b_h[k]) for k in _chunks(W_h.shape[0], 4)]
        return LSTMWeights(i=gate[0], f=gate[1], c=gate[2], o=gate[3])
    if isinstance(module, nn.GRU):
        ks = _chunks(W_h.shape[0], 3)
        r, u = (Gate(W_h[k], W_x[k], b_x[k] + b_h[k]) for k in ks[:2])
        return GRUWeights(r=r, u=u, n=Gate(W_h[ks[2]], W_x[ks[2]], b_x[ks[2]]), b_hn=b_h[ks[2]])
    return RNNWeights(W_h, W_x, b_x + b_h, activation=module.nonlinearity)


def _chunks(rows: int, parts: int) -> list[slice]:
    n = rows // parts
    return [slice(j * n, (j + 1) * n) for j in range(parts)]


def _zeros_state(n: int, x: Tensor) -> Tensor:
    return torch.zeros(*x.shape[1:-1], n, dtype=x.dtype)
