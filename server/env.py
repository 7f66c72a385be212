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


def budget_bytes() -> int:
    """The whole budget in bytes: ``LMLAB_MEMORY_MB`` or min(RAM / 4, 6 GiB)."""
    configured = os.environ.get("LMLAB_MEMORY_MB", "").strip()
    if configured:
        try:
            return max(1, int(float(configured))) * 2**20
        except ValueError:
            pass
    try:
        ram = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        ram = 8 * 2**30
    return min(ram // 4, 6 * 2**30)


def training_slots() -> int:
    """Runs at once: ``LMLAB_TRAINING_SLOTS``, else half the CPU cores (at least 1)."""
    return int(env_number("LMLAB_TRAINING_SLOTS", max(1, (os.cpu_count() or 2) // 2), minimum=1))


def time_cap() -> float:
    """Seconds one run may take: ``LMLAB_JOB_SECONDS`` (default 240, at least 5)."""
    return env_number("LMLAB_JOB_SECONDS", 240.0, minimum=5.0)
