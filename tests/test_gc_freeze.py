"""server/gc_freeze.py's freeze_long_lived: what is alive when it runs is out of later collections' sight, a
cycle among those objects is still collected by its next call, and only a real server freezes (the
test process's own collector is left alone). Each freeze runs in a subprocess: a frozen pytest
process would keep the cycles of every test after it."""
import gc
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

SCRIPT = """
import gc, sys, weakref
sys.path.insert(0, {root!r})
from server.gc_freeze import freeze_long_lived

class Node:
    pass

a, b = Node(), Node()
a.other, b.other = b, a  # a cycle: only the collector frees it
alive = weakref.ref(a)
frozen = freeze_long_lived()
seen = {{id(o) for o in gc.get_objects()}}
print("frozen_many", frozen > 1000)
print("hidden", id(a) not in seen and id(b) not in seen)
del a, b
gc.collect()
print("kept_by_plain_collect", alive() is not None)
freeze_long_lived()
print("collected_by_next_call", alive() is None)
"""


def run_script() -> dict[str, str]:
    out = subprocess.run([sys.executable, "-c", SCRIPT.format(root=str(ROOT))], capture_output=True, text=True,
                         check=True, timeout=120).stdout
    return dict(line.split(" ", 1) for line in out.splitlines())


def test_frozen_objects_are_hidden_and_their_cycles_collected_at_the_next_call():
    assert run_script() == {"frozen_many": "True", "hidden": "True", "kept_by_plain_collect": "True",
                            "collected_by_next_call": "True"}


def test_outside_a_server_neither_the_warm_up_nor_release_memory_freezes():
    from server import warmup
    from server.corpus_use import release_memory
    from server.sessions import connected_sessions

    assert connected_sessions() is None
    before = gc.get_freeze_count()
    warmup.IDLE_SECONDS, saved = 0.0, warmup.IDLE_SECONDS  # no run going on here: give way at once
    try:
        warmup._freeze_long_lived()
    finally:
        warmup.IDLE_SECONDS = saved
    release_memory()
    assert gc.get_freeze_count() == before == 0
