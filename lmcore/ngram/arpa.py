"""ARPA export: log10 P(w | h) of every stored n-gram and log10 backoff weight of every context.

For an interpolated model the stored probability is the full interpolated P(w | h) and the
backoff weight of h is γ(h) (as KenLM's lmplz writes it); for backoff KN it is α(h); for the
notes' formula it is 1 (log10 = 0). A query then reads
    log10 P(w | h) = log10 P_stored(w | h_m) + Σ_{contexts longer than h_m} log10 bow(context).
MLE and add-δ are not of this form (their unseen words are not α(h)·P_lower) and are refused.
"""
from __future__ import annotations

from contextlib import nullcontext
from pathlib import Path
from typing import IO, TYPE_CHECKING

import numpy as np

from lmcore.ngram.methods import ARPA_METHODS

if TYPE_CHECKING:
    from lmcore.ngram.model import NgramModel

LOG_ZERO = -99.0


def _log10(x: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore"):
        out = np.log10(x)
    return np.where(x > 0, out, LOG_ZERO)


def arpa_lines(model: NgramModel) -> list[str]:
    """The ARPA text of ``model`` as lines."""
    if model.method not in ARPA_METHODS:
        raise ValueError(f"{model.method!r} cannot be written as a backoff (ARPA) model; "
                         f"use one of {', '.join(ARPA_METHODS)}")
    tables, levels = model.tables, model.levels
    bos = tables[0].radix - 1
    lines = ["\\data\\"] + [f"ngram {t.order}={len(t)}" for t in tables] + [""]
    unigrams = list(model.vocab) + ["<s>"]
    names = unigrams
    for k, (table, level) in enumerate(zip(tables, levels), start=1):
        if k > 1:
            prev = names
            names = [f"{prev[c]} {unigrams[w]}" for c, w in zip(table.ctx.tolist(), table.word.tolist())]
        logp = _log10(level.prob)
        if k == 1:
            logp[bos] = LOG_ZERO
        lines.append(f"\\{k}-grams:")
        if k < model.order:
            nxt = levels[k]
            bow = np.where(nxt.ctx_seen, _log10(nxt.U), 0.0)
            lines.extend(f"{p:.7f}\t{n}\t{b:.7f}" for p, n, b in zip(logp.tolist(), names, bow.tolist()))
        else:
            lines.extend(f"{p:.7f}\t{n}" for p, n in zip(logp.tolist(), names))
        lines.append("")
    lines.append("\\end\\")
    return lines


def write_arpa(model: NgramModel, target: str | Path | IO[str]) -> None:
    """Write ``model`` in ARPA format to a path or an open text file."""
    lines = arpa_lines(model)
    ctx = open(target, "w", encoding="utf-8") if isinstance(target, (str, Path)) else nullcontext(target)
    with ctx as f:
        f.write("\n".join(lines) + "\n")
