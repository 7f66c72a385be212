"""How fast every page opens and answers, in Chromium against `streamlit run app.py` (built-in English corpus).

Per page it prints ``name: value`` lines for this checkout ("ours") and, with ``--baseline REV``,
for that commit checked out into a temporary folder ("base"), measured alternately in the same run:
- ``first_open_s``: a fresh server opens the home page and is left to rest (its idle-time warm-up
  done, as on a server started before class: ``--rest``); then the navigation click → page settled;
- ``upload_first_s`` / ``upload_filled_s``: on a warm server, a new ~200 KB English text uploaded
  on the page → first useful content (its first run on the new corpus settled), and → every part
  filled (no progress bar or spinner left: background runs finished);
- ``<control>.p50_ms`` / ``p95_ms``: moving one main control → settled; ``<control>.kb``: bytes the
  server sent per move (compressed WebSocket frames); ``<control>.plotly_draws`` / ``plots_made``: Plotly
  draws per move, and plots made from scratch (bench/latency_browser.py's ``DRAWS``, counted in the page);
  ``<control>.server_ms``: AppTest-timed server work per move (the fragment
  holding the control, else the whole script; the scope is printed).
``*_server_cpu_*``: CPU time the server process used meanwhile (all its threads): on a shared, busy
machine wall times stretch with the load, CPU time much less. ``machine_browser_ms``: the time
Chromium takes to draw one fixed chart, at the start and the end of the run (the machine's speed
then: the same code's wall times vary by a third between runs here). Targets (issues 11 and 39): first
open ≤ 1.5 s; first useful content ≤ 2 s after an upload; control median ≤ 120 ms and p95 ≤ 200 ms;
≤ 100 ms of server work per fragment rerun. Usage:
    python bench/page_latency.py [--baseline REV] [--pages lstm,seq2seq] [--repeats N] [--moves N]
                                 [--skip first,upload,controls,server] [--upload-kb 200] [--rest S]
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from latency_browser import Tab, browser_speed_ms, launch, server  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from server.warmup import IDLE_SECONDS  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
HOME_PATH = "welcome"  # ui/navigation.py: the default page, served at "/"
TARGETS = {"first_open_s": 1.5, "upload_first_s": 2.0, "p50_ms": 120, "p95_ms": 200, "server_ms": 100}
# page → [(Streamlit key, browser kind, values set in turn, option index clicked for each value, the
# page's part (tab, ui/sections.py) that holds the control: opened by ?part=, which older trees ignore)]
CONTROLS: dict[str, list] = {
    "home": [],
    "corpus": [("corpus_top", "slider", [50, 20], None, "tokens")],
    "chain_rule": [("chain_order", "slider", [4, 3], None, None)],
    "ngram": [("ngram_order", "slider", [4, 3], None, None), ("ngram_rows", "slider", [11, 10], None, "words")],
    "rnn_bptt": [("rnn_step", "slider", [2, 1], None, "step"), ("rnn_topk", "slider", [6, 5], None, "topk")],
    "gradients": [("grad_scale", "slider", [1.05, 1.0], None, "curves"),
                  ("cliff_threshold", "slider", [21.0, 20.0], None, "clipping")],
    "lstm": [("lstm_units", "slider", [33, 32], None, "gates"), ("lstm_signal", "radio", ["i", "f"], [1, 0], "gates"),
             ("lstm_bias", "slider", [0.5, 0.0], None, "gradient"),
             ("lstm_cmp_split", "radio", ["valid", "test"], [1, 0], "compare")],
    "seq2seq": [("seq2seq_k", "slider", [4, 3], None, "example"),
                ("seq2seq_variant", "radio", ["none", "dot"], [0, 1], "example")],
    "decoding": [("decoding_k", "slider", [3, 2], None, None), ("decoding_alpha", "slider", [0.8, 0.7], None, None)],
}


def pages_of(tree: Path) -> dict[str, str]:
    """stem → URL path, from the tree's own ui/navigation.py (no streamlit import there)."""
    spec = importlib.util.spec_from_file_location(f"_nav_{abs(hash(tree))}", tree / "ui" / "navigation.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return {stem: url for stem, url, _ in module.PAGES}


def upload_text(kb: int, seed: int) -> str:
    """About ``kb`` KB of English: the built-in sample's lines in a seeded random order (each upload new)."""
    lines = [line for path in sorted((ROOT / "assets" / "corpora" / "english").glob("*.txt"))
             for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    rng, out, size = random.Random(seed), [], 0
    while size < kb * 1024:
        line = rng.choice(lines)
        out.append(line)
        size += len(line.encode()) + 1
    return "\n".join(out) + "\n"


def first_open(browser, tree: Path, url_path: str, rest: float) -> tuple[float, int, float]:
    """(seconds, bytes, server CPU seconds) from the navigation click to the page settled, fresh server
    (no page but home run yet) at rest: ``rest`` seconds, then until its CPU is idle (the warm-up
    waits for ``IDLE_SECONDS`` without a run before its heavy imports; mid-click they would hold the
    GIL for 2-3 s). The home page is reached from the chain-rule page (its link is the app's root, "/")."""
    home = url_path == HOME_PATH
    with server(tree) as url:
        tab = Tab(browser)
        try:
            tab.open(url + ("/perplexity" if home else "/"), timeout=600)
            if home and tab.page.get_by_text("Page not found").count():  # a fresh server's first deep link
                tab.page.keyboard.press("Escape")
            url.wait_at_rest(rest)
            cpu = url.cpu()
            seconds, size = tab.click_nav("" if home else url_path, timeout=1500)
            return seconds, size, url.cpu() - cpu
        finally:
            tab.close()


def controls_and_upload(browser, url: str, url_path: str, stem: str, args, seed: int, tmp: Path) -> dict:
    out: dict = {}
    if "controls" not in args.skip and CONTROLS[stem]:
        url.wait_at_rest(0.5)  # not while the last page's upload is still being released or trained on
        tab = Tab(browser)
        try:
            opened = None
            for key, kind, _, indexes, part in CONTROLS[stem]:
                if opened != (part or ""):  # the page at the part (tab) holding the control
                    query = f"?part={part}" if part else ""
                    tab.open(f"{url}/{'' if stem == 'home' else url_path}{query}", timeout=600)
                    opened = part or ""
                if tab.page.locator(f".st-key-{key}").count() == 0:
                    continue
                try:
                    for n in range(args.moves):
                        step = n if indexes is None else indexes[n % len(indexes)]
                        cpu = url.cpu()
                        tab.draws()
                        seconds, size = tab.move(key, kind, step)
                        drawn = tab.draws()
                        out.setdefault(f"{key}.plotly_draws", []).append(drawn["draws"])
                        out.setdefault(f"{key}.plots_made", []).append(drawn["made"])
                        out.setdefault(f"{key}.server_cpu_ms", []).append(1000 * (url.cpu() - cpu))
                        out.setdefault(f"{key}.ms", []).append(1000 * seconds)
                        out.setdefault(f"{key}.kb", []).append(size / 1024)
                except Exception as error:  # noqa: BLE001 - a control this tree lacks or that broke: say so, go on
                    out[f"{key}.error"] = f"{type(error).__name__}: {str(error).splitlines()[0][:200]}"
        finally:
            tab.close()
    if "upload" not in args.skip:
        path = tmp / f"lesson-{seed}.txt"
        path.write_text(upload_text(args.upload_kb, seed), encoding="utf-8")
        tab = Tab(browser)
        try:
            tab.open(f"{url}/{'' if stem == 'home' else url_path}", timeout=600)
            cpu = url.cpu()
            first, filled = tab.upload(path, fill_timeout=args.fill_timeout)
            out["upload_first_s"], out["upload_filled_s"] = [first], [filled]
            out["upload_server_cpu_s"] = [url.cpu() - cpu]
        except TimeoutError as error:
            out["upload_error"] = str(error)
        finally:
            tab.close()
    return out


def server_work(tree: Path, stems: list[str], moves: int) -> dict:
    controls = {stem: CONTROLS[stem] for stem in stems if CONTROLS[stem]}
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "latency_apptest.py"), str(tree), json.dumps(controls),
                           str(moves)], cwd=tree, capture_output=True, text=True, timeout=3600)
    line = next((ln for ln in done.stdout.splitlines() if ln.startswith("RESULT ")), None)
    if line is None:
        raise RuntimeError(f"AppTest worker failed in {tree}:\n{done.stderr[-3000:]}")
    return json.loads(line[len("RESULT "):])


def checkout(rev: str, into: Path) -> Path:
    """``rev``'s files in a temporary folder (git archive: no worktree bookkeeping left behind)."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def pctl(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(pct * (len(ordered) - 1))))]


def summary(values: list[float], pct: float | None = None) -> str:
    if pct is None:
        return f"{statistics.median(values):.3f} (min {min(values):.3f}, n={len(values)})"
    return f"{pctl(values, pct):.0f} (n={len(values)})"


def report(name: str, results: dict[str, list[float]], pct: float | None = None, target: float | None = None) -> None:
    """One line per tree, the ratio ours/base (of the medians, or of the percentile), the target."""
    values = {tree: vals for tree, vals in results.items() if vals}
    pick = statistics.median if pct is None else (lambda v: pctl(v, pct))
    for tree, vals in values.items():
        print(f"{name}.{tree}: {summary(vals, pct)}")
    if len(values) == 2 and pick(values["base"]):
        print(f"{name}.ratio: {pick(values['ours']) / pick(values['base']):.3f}")
    if target is not None and "ours" in values:
        print(f"{name}.target: {'met' if pick(values['ours']) <= target else 'MISSED'} (<= {target})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--baseline")
    parser.add_argument("--pages", default="")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--moves", type=int, default=8)
    parser.add_argument("--upload-kb", type=int, default=200)
    parser.add_argument("--rest", type=float, default=IDLE_SECONDS + 2,
                        help="seconds a fresh server rests on the home page before the first-open click")
    parser.add_argument("--fill-timeout", type=float, default=900)
    parser.add_argument("--skip", type=lambda s: set(filter(None, s.split(","))), default=set())
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="lmlab-baseline-") as tmp_name, sync_playwright() as p:
        tmp = Path(tmp_name)
        trees = {"ours": ROOT}
        if args.baseline:
            (tmp / "base").mkdir()
            trees["base"] = checkout(args.baseline, tmp / "base")
        paths = {name: pages_of(tree) for name, tree in trees.items()}
        stems = [s for s in (args.pages.split(",") if args.pages else paths["ours"]) if s in paths["ours"]]
        browser = launch(p)
        speed = {"start": browser_speed_ms(browser)}
        results: dict[str, dict[str, list]] = {}
        order = list(trees)
        if "first" not in args.skip:
            for rep in range(args.repeats):
                for stem in stems:
                    for name in (order if rep % 2 == 0 else order[::-1]):
                        try:
                            seconds, size, cpu = first_open(browser, trees[name], paths[name][stem], args.rest)
                        except Exception as error:  # noqa: BLE001 - report and go on with the other pages
                            print(f"{stem}.first_open.{name}: {type(error).__name__}: {str(error).splitlines()[0][:200]}")
                            continue
                        results.setdefault(f"{stem}.first_open_s", {}).setdefault(name, []).append(seconds)
                        results.setdefault(f"{stem}.first_open_server_cpu_s", {}).setdefault(name, []).append(cpu)
                        results.setdefault(f"{stem}.first_open_kb", {}).setdefault(name, []).append(size / 1024)
        if not {"controls", "upload"} <= args.skip:
            with ExitStack() as servers:
                urls = {name: servers.enter_context(server(trees[name])) for name in order}
                for name in order:  # one warm-up visit each: a class server has been up for a while
                    tab = Tab(browser)
                    tab.open(urls[name] + "/", timeout=600)
                    tab.close()
                for name in order:  # then at rest: its idle-time warm-up done, as before a first open
                    print(f"controls_rest_s.{name}: {urls[name].wait_at_rest(args.rest):.1f}")
                for rep in range(args.repeats):
                    for n, stem in enumerate(stems):
                        for name in (order if (rep + n) % 2 == 0 else order[::-1]):
                            seed = 1000 * rep + 10 * n + order.index(name)
                            got = controls_and_upload(browser, urls[name], paths[name][stem], stem, args, seed, tmp)
                            for metric, values in got.items():
                                if isinstance(values, str):
                                    print(f"{stem}.{metric}.{name}: {values}")
                                    continue
                                results.setdefault(f"{stem}.{metric}", {}).setdefault(name, []).extend(values)
        speed["end"] = browser_speed_ms(browser)
        browser.close()
        if "server" not in args.skip:
            for name, tree in trees.items():
                try:
                    work = server_work(tree, stems, args.moves)
                except Exception as error:  # noqa: BLE001
                    print(f"server_work.{name}: {type(error).__name__}: {str(error)[-500:]}")
                    continue
                for stem, keys in work.items():
                    for key, found in keys.items():
                        results.setdefault(f"{stem}.{key}.server_ms", {}).setdefault(name, []).extend(
                            1000 * s for s in found["seconds"])
                        print(f"{stem}.{key}.scope.{name}: {found['scope']}")
    print(f"machine_load_1min: {open('/proc/loadavg').read().split()[0]}")
    for when, ms in speed.items():  # the same chart drawn at the start and the end: the machine's speed then
        print(f"machine_browser_ms.{when}: {ms:.1f}")
    for metric in sorted(results):
        by_tree = results[metric]
        if metric.endswith(".ms") and not metric.endswith("cpu_ms"):
            report(metric[:-3] + ".p50_ms", by_tree, 0.5, TARGETS["p50_ms"])
            report(metric[:-3] + ".p95_ms", by_tree, 0.95, TARGETS["p95_ms"])
            for tree, values in by_tree.items():  # in the order measured: a first move's cold work shows
                print(f"{metric[:-3]}.each_ms.{tree}: {' '.join(f'{v:.0f}' for v in values)}")
        elif metric.endswith(".server_ms"):
            report(metric[:-10] + ".server_p50_ms", by_tree, 0.5, TARGETS["server_ms"])
            report(metric[:-10] + ".server_p95_ms", by_tree, 0.95)
        else:
            report(metric, by_tree, target=TARGETS.get(metric.split(".")[-1]))


if __name__ == "__main__":
    start = time.time()
    main()
    print(f"bench_wall_s: {time.time() - start:.0f}")
