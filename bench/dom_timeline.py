"""Where a control's time goes in the browser: which parts of the page change, and when.

    python bench/dom_timeline.py lstm-gates lstm_bias slider --part gradient --moves 3

Starts ``streamlit run app.py``, opens the page (URL path) in Chromium, moves the control with
Streamlit key KEY (``slider``, ``radio`` or ``selectbox``, as bench/page_latency.py does) twice to warm
it, then for each measured move prints the DOM changes after the action, grouped into bursts (changes
at most 3 ms apart) with how many fell in each element kind (its nearest ``data-testid``), in ms after
the keypress or click. A Plotly chart drawn from scratch shows as a burst of thousands of changes in
``stPlotlyChart``; the moment the page settled is the last burst. A diagnostic, not a benchmark.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from latency_browser import Tab, launch, server  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
RECORD = """
window.__changes = [];
new MutationObserver((records) => {
  const now = performance.now();
  for (const r of records) {
    let e = r.target.nodeType === 1 ? r.target : r.target.parentElement, kind = null;
    while (e && !kind) { kind = e.getAttribute && e.getAttribute('data-testid'); e = e.parentElement; }
    window.__changes.push([now, kind]);
  }
}).observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
"""


def bursts(changes: list[list], gap_ms: float = 3.0) -> list[tuple[float, float, dict[str, int]]]:
    """(first ms, last ms, changes per element kind) for runs of changes at most ``gap_ms`` apart."""
    out: list[tuple[float, float, dict[str, int]]] = []
    for at, kind in sorted(changes, key=lambda c: c[0]):
        if out and at - out[-1][1] <= gap_ms:
            first, _, kinds = out[-1]
            out[-1] = (first, at, kinds)
        else:
            out.append((at, at, {}))
            kinds = out[-1][2]
        kinds[str(kind)] = kinds.get(str(kind), 0) + 1
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("url_path", help="the page's URL path (ui/navigation.py), e.g. lstm-gates")
    parser.add_argument("key", help="the control's Streamlit key")
    parser.add_argument("kind", choices=["slider", "radio", "selectbox"])
    parser.add_argument("--part", help="the page's part (tab) holding the control (?part=)")
    parser.add_argument("--moves", type=int, default=3)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with server(ROOT) as url, sync_playwright() as playwright:
        browser = launch(playwright)
        tab = Tab(browser)
        tab.context.add_init_script(RECORD)
        tab.open(f"{url}/{args.url_path}" + (f"?part={args.part}" if args.part else ""))
        for step in range(2):
            tab.move(args.key, args.kind, step)
        for step in range(args.moves):
            tab.page.evaluate("window.__changes = []")
            seconds, size = tab.move(args.key, args.kind, step % 2)  # a radio or a select box: its first two options in turn
            action = tab.page.evaluate("window.__lat.action")
            print(f"move {step}: settled {1000 * seconds:.0f} ms after the action, {size} bytes received")
            for first, last, kinds in bursts(tab.page.evaluate("window.__changes")):
                counts = ", ".join(f"{kind} {n}" for kind, n in sorted(kinds.items(), key=lambda kv: -kv[1]))
                print(f"  {first - action:6.0f} .. {last - action:6.0f} ms  {counts}")
        browser.close()


if __name__ == "__main__":
    main()
