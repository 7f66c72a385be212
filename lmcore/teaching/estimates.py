""""Closest to…" choices for estimation questions: the true value among values a constant factor apart.

Options are value·r^j for four consecutive exponents j that include 0 (where 0 falls is drawn), so
neighbouring options differ by the factor r (1.6 by default) and the right one is exactly the true
value: no answer flips on a rounding difference.
"""
from __future__ import annotations

import numpy as np

FACTOR = 1.6
N_OPTIONS = 4


def scaled_options(value: float, rng: np.random.Generator, low: float = 0.0, high: float = float("inf"),
                   factor: float = FACTOR, n: int = N_OPTIONS, whole: bool = True) -> tuple[list[float], int]:
    """Ascending options value·factor^(j − a), j = 0 … n−1, and the index a of ``value`` (a drawn from
    ``rng`` among the offsets whose options all lie in (low, high]: a student cannot rule one out on
    sight; every offset when none does). ``whole``: options rounded to integers (counts), the lowest ≥ 1."""
    if value <= 0:
        raise ValueError("an estimate needs a positive value")
    if whole:
        low = max(low, 0.5)
    fits = [a for a in range(n) if value * factor ** -a > low and value * factor ** (n - 1 - a) <= high]
    offsets = fits or list(range(n))
    offset = int(offsets[int(rng.integers(len(offsets)))])
    options = [value * factor ** (j - offset) for j in range(n)]
    if whole:
        options = [float(round(x)) for x in options]
        options[offset] = float(value)
    return options, offset


def percent(x: float) -> str:
    """A share as a percentage with three significant digits: 0.04263 → "4.26%"."""
    return f"{100 * x:.3g}%"
