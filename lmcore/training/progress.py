"""What a training run reports to its caller after every few steps."""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Progress:
    """One report. Losses are mean nats per model symbol; ``valid_*`` only on evaluation steps.

    ``valid_token_ppl`` is per corpus token with ``</s>`` counted (equals exp(valid_loss) at word level).
    """

    step: int
    total_steps: int
    epoch: int
    tokens_seen: int
    elapsed: float
    train_loss: float
    valid_loss: float | None = None
    valid_token_ppl: float | None = None
    done: bool = False

    @property
    def fraction(self) -> float:
        return min(1.0, self.step / max(self.total_steps, 1))

    @property
    def train_ppl(self) -> float:
        return math.exp(min(self.train_loss, 50.0))

    @property
    def valid_ppl(self) -> float | None:
        return None if self.valid_loss is None else math.exp(min(self.valid_loss, 50.0))


# The callback may return "stop": training then ends after the current step with a usable model.
ProgressCallback = Callable[[Progress], "str | None"]
