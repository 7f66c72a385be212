"""Short collector pauses: what the server keeps for good is hidden from Python's garbage collector."""
from __future__ import annotations

import gc


def freeze_long_lived() -> int:
    """Collect garbage, then hide every object still alive from later collections (``gc.freeze``);
    the number hidden. Called at the end of the warm-up and whenever nobody is connected.

    A collection of the oldest generation visits every container the process holds: in a warm server
    (Streamlit, torch, Plotly, pandas, the English sample and its models) about 290,000 objects with
    1.4 M references, 0.2 s on a quiet core, and it holds the GIL throughout, so every student's run
    waits. In a class of 30 (``bench/classroom_load.py``) five of them took 0.52-1.05 s each on the busy
    machine; frozen, the class's full collections visit only what it made: 0.06-0.89 s, median 0.22 (more
    of them: the oldest generation is small, so it fills its quarter sooner). Frozen objects are still
    freed when their last reference goes; only a cycle among them waits: the next call unfreezes them
    first, so it is collected then."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()
