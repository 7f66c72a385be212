"""Per-run randomness: every training run draws from its own ``torch.Generator``.

Many people train at once in one server process, so no run may seed or read torch's global
generator: two overlapping runs would interleave their draws and "same seed, same weights" would
break. Parameters are initialised here exactly as PyTorch's own ``reset_parameters`` does, but from
the run's generator, and dropout masks come from it too.

Defaults reproduced (``torch.nn`` 2.x):
- ``Embedding``: W ~ N(0, 1), the padding row set to 0;
- ``Linear``: W, b ~ U(−1/√fan_in, 1/√fan_in) (kaiming-uniform with a = √5 gives this bound);
- ``RNN``/``LSTM``/``GRU`` and their cells: every weight and bias ~ U(−1/√n, 1/√n), n = hidden size.
A module holding parameters of its own defines ``init_own_parameters_(generator)``.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from typing import TypeVar

import torch
from torch import nn
from torch.overrides import TorchFunctionMode

M = TypeVar("M", bound=nn.Module)


def init_parameters_(module: nn.Module, generator: torch.Generator) -> nn.Module:
    """Re-initialise every parameter of ``module`` in place from ``generator``; return the module.

    Raises ``TypeError`` for a module type holding its own parameters that is not listed above,
    so a new layer cannot silently keep weights drawn from the global generator.
    """
    with torch.no_grad():
        for sub in module.modules():
            own = list(sub.parameters(recurse=False))
            if not own:
                continue
            if hasattr(sub, "init_own_parameters_"):  # a module that knows how its own weights start
                sub.init_own_parameters_(generator)
            elif isinstance(sub, nn.Embedding):
                sub.weight.normal_(0.0, 1.0, generator=generator)
                if sub.padding_idx is not None:
                    sub.weight[sub.padding_idx].zero_()
            elif isinstance(sub, nn.Linear):
                bound = 1.0 / math.sqrt(sub.in_features) if sub.in_features else 0.0
                for p in own:
                    p.uniform_(-bound, bound, generator=generator)
            elif isinstance(sub, (nn.RNNBase, nn.RNNCellBase)):
                bound = 1.0 / math.sqrt(sub.hidden_size)
                for p in own:
                    p.uniform_(-bound, bound, generator=generator)
            else:
                raise TypeError(f"no seeded initialisation for {type(sub).__name__}")
    return module


class GeneratorDropout(nn.Module):
    """Inverted dropout whose masks come from ``self.generator`` (set by the training run).

    Training: y = x ⊙ m / (1 − p), m_i ~ Bernoulli(1 − p); evaluation: y = x.
    """

    def __init__(self, p: float = 0.0) -> None:
        super().__init__()
        if not 0.0 <= p < 1.0:
            raise ValueError("dropout must be in [0, 1)")
        self.p = p
        self.generator: torch.Generator | None = None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not self.training or self.p == 0.0:
            return x
        if self.generator is None:
            raise RuntimeError("GeneratorDropout needs a generator while training")
        keep = torch.empty_like(x).bernoulli_(1.0 - self.p, generator=self.generator)
        return x * keep / (1.0 - self.p)

    def extra_repr(self) -> str:
        return f"p={self.p}"


class _SkipInit(TorchFunctionMode):
    """Skips torch's own parameter initialisation while a module is built on the meta device:
    every parameter is initialised again afterwards, and on meta tensors those calls go through
    Python reference kernels whose first use imports torch._dynamo (seconds, once per process:
    a page that loads a shipped model would wait for it)."""

    SKIPPED = frozenset({torch.nn.init.normal_, torch.nn.init.uniform_, torch.nn.init.kaiming_uniform_,
                         torch.nn.init.xavier_uniform_, torch.nn.init.zeros_, torch.nn.init.ones_,
                         torch.Tensor.normal_, torch.Tensor.uniform_})

    def __torch_function__(self, func, types, args=(), kwargs=None):
        if func in self.SKIPPED:
            return args[0] if args else next(iter((kwargs or {}).values()))
        return func(*args, **(kwargs or {}))


def build_seeded(factory: Callable[[], M], seed: int) -> M:
    """``factory()`` built without drawing from the global generator (on the meta device), then
    materialised on the CPU and initialised from a generator seeded with ``seed``."""
    with torch.device("meta"), _SkipInit():
        module = factory()
    # what Module.to_empty does, without empty_like on meta tensors (its first call imports sympy)
    module = module._apply(lambda t: torch.empty(t.shape, dtype=t.dtype, device="cpu"))
    return init_parameters_(module, generator(seed))


def generator(seed: int) -> torch.Generator:
    """A CPU generator seeded with ``seed``."""
    return torch.Generator().manual_seed(int(seed))
