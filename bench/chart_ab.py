"""st.plotly_chart against ui/plotly_element.py on the one-slider app (bench/one_slider_app.py), A/B.

    python bench/chart_ab.py [--moves 30] [--warm 3]

One server, one Chromium; a tab per element (``?chart=plotly``, ``?chart=element``). The slider is
moved in one tab, then the other, alternately, and each move is timed from the keypress to the page
settled (bench/latency_browser.py: the last DOM change before 0.4 s of quiet) and its Plotly drawing
counted in the page (draws ended, plots made from scratch, and the API calls that drew). Prints ``name: value`` lines: the
median and min of each, their ratio (element / plotly), and draws per move.
"""
from __future__ import annotations

import argparse
import statistics
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from latency_browser import Tab, Server, browser_speed_ms, launch  # noqa: E402
from streamlit_process import streamlit_process  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
KINDS = ("plotly", "element")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=30, help="measured moves per element")
    parser.add_argument("--warm", type=int, default=3, help="unmeasured moves per element first")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with streamlit_process(ROOT, script="bench/one_slider_app.py") as (address, process), sync_playwright() as p:
        url = Server(address)
        url.pid = process.pid
        browser = launch(p)
        print(f"machine_browser_ms.start: {browser_speed_ms(browser):.1f}")
        tabs = {kind: Tab(browser) for kind in KINDS}
        for kind, tab in tabs.items():
            tab.open(f"{url}/?chart={kind}", timeout=300)
            for step in range(args.warm):
                tab.move("k", "slider", step)
        ms: dict[str, list[float]] = {kind: [] for kind in KINDS}
        draws: dict[str, list[int]] = {kind: [] for kind in KINDS}
        made: dict[str, list[int]] = {kind: [] for kind in KINDS}
        calls: dict[str, Counter] = {kind: Counter() for kind in KINDS}
        for n in range(args.moves):
            for kind in (KINDS if n % 2 == 0 else KINDS[::-1]):
                tab = tabs[kind]
                tab.draws()
                seconds, _ = tab.move("k", "slider", n)
                counted = tab.draws()
                ms[kind].append(1000 * seconds)
                draws[kind].append(counted["draws"])
                made[kind].append(counted["made"])
                calls[kind].update(counted["calls"])
        print(f"machine_browser_ms.end: {browser_speed_ms(browser):.1f}")
        browser.close()
    for kind in KINDS:
        print(f"{kind}.settle_ms.median: {statistics.median(ms[kind]):.0f}")
        print(f"{kind}.settle_ms.min: {min(ms[kind]):.0f}")
        print(f"{kind}.draws_per_move.median: {statistics.median(draws[kind]):g}")
        print(f"{kind}.draws_per_move.max: {max(draws[kind])}")
        print(f"{kind}.plots_made_per_move.median: {statistics.median(made[kind]):g}")
        print(f"{kind}.calls_per_move: " + ", ".join(f"{name} {count / args.moves:g}"
                                                     for name, count in sorted(calls[kind].items())))
    for stat, pick in (("median", statistics.median), ("min", min)):
        print(f"ratio.settle_ms.{stat}: {pick(ms['element']) / pick(ms['plotly']):.3f}")
    print(f"moves: {args.moves} each, alternating")


if __name__ == "__main__":
    main()
