"""Command line: ``python -m lmcore.ngram TRAIN.txt --order 5 --method modified-kn --test TEST.txt
--arpa OUT.arpa``. Files hold one sentence per line, tokens separated by whitespace (as KenLM)."""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from collections.abc import Sequence

from lmcore.ngram.methods import ARPA_METHODS, METHODS
from lmcore.ngram.model import MAX_ORDER, NgramModel


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
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if not 1 <= args.order <= MAX_ORDER:
        parser().error(f"--order must be between 1 and {MAX_ORDER}")
    if args.arpa and args.method not in ARPA_METHODS:
        parser().error(f"--arpa needs one of: {', '.join(ARPA_METHODS)}")
    start = time.perf_counter()
    try:
        model = NgramModel.fit(read_sentences(args.train), args.order, args.method,
                               delta=args.delta, discount=args.discount)
    except ValueError as err:
        parser().error(str(err))
    print(f"model: {model!r}")
    print(f"fit_seconds: {time.perf_counter() - start:.3f}")
    if args.test:
        result = model.perplexity(read_sentences(args.test))
        print(f"tokens: {result.n_tokens}")
        print(f"oov: {result.n_oov}")
        print(f"perplexity_including_oovs: {result.ppl:.4f}")
        print(f"perplexity_excluding_oovs: {result.ppl_excl_oov:.4f}")
        if result.n_zero:
            print(f"zero_probability_tokens: {result.n_zero}")
    if args.arpa:
        model.to_arpa(args.arpa)
        print(f"arpa: {args.arpa}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
