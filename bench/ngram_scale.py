"""Bench: the n-gram CLI against KenLM's lmplz as whole processes, PTB × 1 / × 4 / × 16.

python bench/ngram_scale.py [--lmplz PATH] [--sizes 1,4,16] [--orders 3,5] [--repeats 3]

Texts (made in a temporary folder from PTB, ``../shared/data/ptb`` beside the project by default): PTB train, and
× m = m shuffled copies of it, copy c > 0 with the suffix ``_c`` on every token (so the n-grams
differ); the literal ``<unk>`` is written ``UNKWORD`` for both tools (lmplz refuses it). Test text:
PTB test, the same way. For every (size, order): ``python -m lmcore.ngram TRAIN --order N --test
TEST --arpa OUT`` and ``lmplz -o N -S 1G < TRAIN > OUT`` in alternating runs; wall seconds and peak
RSS of each whole process (``os.wait4``), median and min; tokens/s; ratios ours/lmplz; the test
perplexity of both (lmplz's through KenLM's ``query`` next to it, else the ``kenlm`` module).
Without lmplz (not on the PATH, no ``--lmplz``) our own figures are printed alone.
"""
from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PTB = ROOT.parent / "shared" / "data" / "ptb"  # ../shared beside the project folder


def make_text(ptb: Path, folder: Path, copies: int) -> tuple[Path, int]:
    """(path, predicted tokens = words + one </s> per sentence) of PTB train × copies."""
    lines = [line.split() for line in (ptb / "ptb.train.txt").read_text(encoding="utf-8").splitlines()]
    lines = [["UNKWORD" if w == "<unk>" else w for w in s] for s in lines if s]
    rng = random.Random(copies)
    path = folder / f"ptb_x{copies}.txt"
    tokens = 0
    with open(path, "w", encoding="utf-8") as f:
        for c in range(copies):
            order = list(range(len(lines)))
            rng.shuffle(order)
            suffix = f"_{c}" if c else ""
            for i in order:
                f.write(" ".join(w + suffix for w in lines[i]) + "\n")
                tokens += len(lines[i]) + 1
    return path, tokens


def make_test(ptb: Path, folder: Path) -> Path:
    path = folder / "ptb_test.txt"
    text = (ptb / "ptb.test.txt").read_text(encoding="utf-8").replace("<unk>", "UNKWORD")
    path.write_text(text, encoding="utf-8")
    return path


def run_process(cmd: list[str], stdin: Path | None = None, stdout: Path | None = None) -> tuple[float, float, str]:
    """(wall seconds, peak RSS MB, stdout text) of one whole process (``os.wait4``); its output
    goes to files, read after it ended."""
    with tempfile.TemporaryFile() as out_f, tempfile.TemporaryFile() as err_f:
        fin = open(stdin, "rb") if stdin else subprocess.DEVNULL
        fout = open(stdout, "wb") if stdout else out_f
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdin=fin, stdout=fout, stderr=err_f, cwd=ROOT)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        if stdin:
            fin.close()
        if stdout:
            fout.close()
        out_f.seek(0)
        err_f.seek(0)
        if proc.returncode != 0:
            raise RuntimeError(f"{cmd[0]} failed: {err_f.read().decode(errors='replace')[-2000:]}")
        return wall, usage.ru_maxrss / 1024, out_f.read().decode()


def run_ours(train: Path, test: Path, order: int, arpa: Path) -> tuple[float, float, float]:
    """(wall s, peak RSS MB, test perplexity incl. OOVs) of the CLI."""
    cmd = [sys.executable, "-m", "lmcore.ngram", str(train), "--order", str(order), "--test", str(test),
           "--arpa", str(arpa)]
    wall, rss, out = run_process(cmd)
    ppl = float(re.search(r"perplexity_including_oovs: ([\d.]+)", out).group(1))
    return wall, rss, ppl


def run_lmplz(lmplz: str, train: Path, order: int, arpa: Path) -> tuple[float, float]:
    wall, rss, _ = run_process([lmplz, "-o", str(order), "-S", "1G"], stdin=train, stdout=arpa)
    return wall, rss


def peer_perplexity(lmplz: str, arpa: Path, test: Path) -> float:
    """Test perplexity (OOVs included) of lmplz's ARPA file, by KenLM's own query code."""
    query = Path(lmplz).with_name("query")
    if query.exists():
        out = subprocess.run([str(query), "-v", "summary", str(arpa)], stdin=open(test, "rb"),
                             capture_output=True, text=True, check=True).stdout
        return float(re.search(r"Perplexity including OOVs:\s*([\d.]+)", out).group(1))
    import kenlm

    model = kenlm.Model(str(arpa))
    lines = [line for line in test.read_text(encoding="utf-8").splitlines() if line.split()]
    log10 = sum(model.score(line, bos=True, eos=True) for line in lines)
    return 10 ** (-log10 / sum(len(line.split()) + 1 for line in lines))


def stats(values: list[float]) -> tuple[float, float]:
    return statistics.median(values), min(values)


def report_runs(prefix: str, runs: list[tuple[float, float]], tokens: int) -> tuple[float, float, float]:
    """Print the median and least wall seconds, the median peak RSS (MB) and tokens per second of
    one tool's (wall, rss) runs; return (wall median, wall min, rss median)."""
    wall_med, wall_min = stats([w for w, _ in runs])
    rss_med, _ = stats([r for _, r in runs])
    print(f"{prefix}_wall_s_median: {wall_med:.2f}")
    print(f"{prefix}_wall_s_min: {wall_min:.2f}")
    print(f"{prefix}_peak_rss_mb_median: {rss_med:.0f}")
    print(f"{prefix}_tokens_per_s_median: {tokens / wall_med:.0f}")
    return wall_med, wall_min, rss_med


def bench_one(name: str, train: Path, tokens: int, test: Path, order: int, repeats: int, lmplz: str | None,
              folder: Path) -> None:
    ours, peer = [], []
    ours_arpa, peer_arpa = folder / "ours.arpa", folder / "lmplz.arpa"
    ppl = None
    for _ in range(repeats):  # alternating: ours, lmplz, ours, lmplz, …
        wall, rss, ppl = run_ours(train, test, order, ours_arpa)
        ours.append((wall, rss))
        if lmplz:
            peer.append(run_lmplz(lmplz, train, order, peer_arpa))
    p = f"{name}_order{order}"
    print(f"{p}_tokens: {tokens}")
    wall_med, wall_min, rss_med = report_runs(f"{p}_ours", ours, tokens)
    print(f"{p}_ours_peak_rss_bytes_per_token: {rss_med * 2 ** 20 / tokens:.0f}")
    print(f"{p}_ours_test_ppl: {ppl:.2f}")
    if not lmplz:
        return
    lw_med, lw_min, lr_med = report_runs(f"{p}_lmplz", peer, tokens)
    print(f"{p}_lmplz_test_ppl: {peer_perplexity(lmplz, peer_arpa, test):.2f}")
    print(f"{p}_wall_ratio_ours_over_lmplz_median: {wall_med / lw_med:.2f}")
    print(f"{p}_wall_ratio_ours_over_lmplz_min: {wall_min / lw_min:.2f}")
    print(f"{p}_rss_ratio_ours_over_lmplz_median: {rss_med / lr_med:.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ptb", default=str(PTB), help="folder with ptb.train.txt and ptb.test.txt")
    ap.add_argument("--lmplz", help="KenLM's lmplz (default: found on the PATH; none: our figures only)")
    ap.add_argument("--sizes", default="1,4,16", help="copies of PTB train (comma separated)")
    ap.add_argument("--orders", default="3,5")
    ap.add_argument("--repeats", type=int, default=3, help="alternating runs per tool (×16: at most 2)")
    ap.add_argument("--keep", help="write the texts and ARPA files here instead of a temporary folder")
    args = ap.parse_args()
    lmplz = args.lmplz or shutil.which("lmplz")
    print(f"lmplz: {lmplz or 'not found (our figures only)'}")
    folder = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="ngram_scale_"))
    folder.mkdir(parents=True, exist_ok=True)
    try:
        test = make_test(Path(args.ptb), folder)
        for size in (int(s) for s in args.sizes.split(",")):
            train, tokens = make_text(Path(args.ptb), folder, size)
            for order in (int(o) for o in args.orders.split(",")):
                repeats = min(args.repeats, 2) if size >= 16 else args.repeats
                bench_one(f"ptb_x{size}", train, tokens, test, order, repeats, lmplz, folder)
            if not args.keep:
                train.unlink()
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
