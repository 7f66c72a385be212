"""Command line: ``python -m lmcore.ngram TRAIN.txt --order 5 --method modified-kn --test TEST.txt
--arpa OUT.arpa``. Files hold one sentence per line, tokens separated by whitespace (as KenLM).

The files are read and counted without a Python object per token, and the model is built, used
and written one order at a time (:mod:`lmcore.ngram.pipeline`); torch is never imported.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from collections.abc import Sequence

from lmcore.ngram.memory import MAX_ORDER
from lmcore.ngram.methods import ARPA_METHODS, METHODS


def read_sentences(path: str | Path) -> list[list[str]]:
    """One sentence per non-empty line, whitespace tokens."""
    with open(path, encoding="utf-8") as f:
        return [line.split() for line in f if line.strip()]


def parser() -> argparse.ArgumentParser:
    methods = "\n".join(f"  {name:12s} {text}" for name, text in METHODS.items())
    p = argparse.ArgumentParser(
        prog="python -m lmcore.ngram", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Fit an n-gram language model, report test perplexity, write an ARPA file.",
        epilog=f"methods:\n{methods}\nARPA export: {', '.join(ARPA_METHODS)}")
    p.add_argument("train", help="training text, one sentence per line")
    p.add_argument("--order", type=int, default=3, help=f"n-gram order 1..{MAX_ORDER} (default 3)")
    p.add_argument("--method", choices=list(METHODS), default="modified-kn")
    p.add_argument("--delta", type=float, default=1.0, help="add-delta's delta (default 1: Laplace)")
    p.add_argument("--discount", type=float, default=0.75, help="KN discount d (default 0.75)")
    p.add_argument("--test", help="text to score")
    p.add_argument("--arpa", help="write the model to this ARPA file")
    p.add_argument("--textbook-discounts", action="store_true",
                   help="modified-kn: textbook count-of-counts instead of lmplz's exact ones")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if not 1 <= args.order <= MAX_ORDER:
        parser().error(f"--order must be between 1 and {MAX_ORDER}")
    if args.arpa and args.method not in ARPA_METHODS:
        parser().error(f"--arpa needs one of: {', '.join(ARPA_METHODS)}")
    from lmcore.ngram.pipeline import run

    start = time.perf_counter()
    try:
        result = run(args.train, args.order, args.method, args.delta, args.discount, args.test, args.arpa,
                     lmplz_exact=not args.textbook_discounts)
    except (ValueError, OSError) as err:
        parser().error(str(err))
    total = time.perf_counter() - start
    seconds = result.seconds
    print(f"model: NgramModel(order={args.order}, method={args.method!r}, |V|={result.vocab_size})")
    print(f"fit_seconds: {seconds['count'] + seconds['smooth']:.3f}")
    for phase in ("count", "smooth", "score", "write"):
        print(f"{phase}_seconds: {seconds[phase]:.3f}")
    print(f"total_seconds: {total:.3f}")
    if result.perplexity is not None:
        ppl = result.perplexity
        print(f"tokens: {ppl.n_tokens}")
        print(f"oov: {ppl.n_oov}")
        print(f"perplexity_including_oovs: {ppl.ppl:.4f}")
        print(f"perplexity_excluding_oovs: {ppl.ppl_excl_oov:.4f}")
        if ppl.n_zero:
            print(f"zero_probability_tokens: {ppl.n_zero}")
    if args.arpa:
        print(f"arpa: {args.arpa}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
