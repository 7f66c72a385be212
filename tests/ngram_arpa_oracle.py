"""Test oracle: the ARPA writer as it was before the streamed byte writer (commit 8ac7349 of
lmcore/ngram/arpa.py, ``arpa_lines``), one Python f-string per line. Kept here, not in lmcore, to
check the streamed writer line for line; it reads the model through ``table.ctx``/``table.word``
and ``level.prob``/``level.U``/``level.ctx_seen`` only."""
from __future__ import annotations

import numpy as np

LOG_ZERO = -99.0


def _log10(x: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore"):
        out = np.log10(x)
    return np.where(x > 0, out, LOG_ZERO)


def oracle_arpa_lines(model) -> list[str]:
    """The ARPA text of ``model`` as lines (the pre-streaming writer, verbatim)."""
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
