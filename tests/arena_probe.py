"""How much of the memory a burst of small objects took does the process give back once all but a few
of them are gone? Builds ``--objects`` one-element tuples, keeps every ``--keep-every``-th, drops the
rest, then waits (at most ``--wait`` seconds) until RSS is back by ``--enough`` of what the burst added.
Prints ``given_back: F`` (F: that fraction when it stopped waiting). Python's own allocator keeps a 1 MiB
arena while any object in it lives; jemalloc (server/allocator.py ``server_env``) gives back free 4 KiB pages.
Used by tests/test_heap.py."""
import argparse
import os
import time

PAGE = os.sysconf("SC_PAGE_SIZE")


def rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * PAGE


def given_back(objects: int, keep_every: int, wait: float, enough: float) -> float:
    before = rss()
    burst = [(i + 1000,) for i in range(objects)]  # ints above 256: each its own object
    grown = rss()
    kept = burst[::keep_every]
    del burst
    deadline = time.monotonic() + wait
    while True:
        fraction = (grown - rss()) / (grown - before)
        if fraction >= enough or time.monotonic() > deadline:
            assert len(kept) == -(-objects // keep_every)
            return fraction
        time.sleep(0.2)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--objects", type=int, default=1_000_000)
    parser.add_argument("--keep-every", type=int, default=2048)
    parser.add_argument("--wait", type=float, default=3.0)
    parser.add_argument("--enough", type=float, default=0.8)
    args = parser.parse_args()
    print(f"given_back: {given_back(args.objects, args.keep_every, args.wait, args.enough):.2f}")
