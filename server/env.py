"""The server's settings from the environment (the table in the README)."""
from __future__ import annotations

import math
import os


def env_number(name: str, default: float, minimum: float) -> float:
    """``float(os.environ[name])``, at least ``minimum``; ``default`` when unset or not a finite number."""
    try:
        value = float(os.environ[name])
    except (KeyError, ValueError):
        return default
    return max(minimum, value) if math.isfinite(value) else default
