"""The streamed ARPA writer (NumPy byte blocks) against the pre-streaming writer kept as an oracle
in tests/ngram_arpa_oracle.py: the same n-grams, the same values, the same text, line for line."""
import io
import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from lmcore.ngram import ARPA_METHODS, NgramModel, count_ngrams
from lmcore.ngram import arpa as arpa_module
from lmcore.ngram.arpa import arpa_lines
from lmcore.ngram.arpa_text import format_fixed7
from tests.ngram_arpa_oracle import oracle_arpa_lines
from tests.test_ngram_normalisation import small_corpus

TRAIN = small_corpus(400, seed=31) + [["词", "语", "w1"], ["é", "w2", "<unk>"], ["a\u00a0b"]]
COUNTS = count_ngrams(TRAIN, 5)


def parse(lines: list[str]) -> dict[str, tuple[float, ...]]:
    """{n-gram: (log10 p[, log10 bow])} of ARPA lines."""
    out = {}
    for line in lines:
        parts = line.split("\t")
        if len(parts) >= 2:
            out[parts[1]] = tuple(float(x) for x in [parts[0]] + parts[2:])
    return out


@pytest.mark.parametrize("method", ARPA_METHODS)
@pytest.mark.parametrize("order", [1, 2, 3, 5])
def test_streamed_arpa_is_the_oracle_line_for_line(method, order):
    lm = NgramModel(COUNTS, order, method)
    ours, oracle = arpa_lines(lm), oracle_arpa_lines(lm)
    assert parse(ours) == parse(oracle)  # same n-grams, same values to the printed precision
    assert ours == oracle  # and the very same text


def test_blocks_and_file_targets_change_nothing(tmp_path, monkeypatch):
    """Blocks of 7 rows (every order cut many times) give the same bytes, to a path, a text file
    and a binary file."""
    lm = NgramModel(COUNTS, 4, "modified-kn")
    expected = "\n".join(oracle_arpa_lines(lm)) + "\n"
    monkeypatch.setattr(arpa_module, "BLOCK_ROWS", 7)
    lm.to_arpa(tmp_path / "a.arpa")
    assert (tmp_path / "a.arpa").read_text(encoding="utf-8") == expected
    text, raw = io.StringIO(), io.BytesIO()
    lm.to_arpa(text)
    lm.to_arpa(raw)
    assert text.getvalue() == expected and raw.getvalue().decode("utf-8") == expected


def _near_ties() -> list[float]:
    """Values whose 8th decimal is a 5: the float product x·10^7 may land either side."""
    return [k / 1e7 + 5e-8 for k in (0, 1, 12345, 999999, 10_000_000, 123_456_789)] + \
           [-(k / 1e7 + 5e-8) for k in (0, 7, 2_500_000)]


@settings(max_examples=300, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False, min_value=-1e15, max_value=1e15))
@example(0.0)
@example(-0.0)
@example(-99.0)
@example(-1e-9)
@example(99.99999995)
@example(-99.999999949)
@example(-10.0)
@example(9.99999995)
def test_numbers_are_python_percent_7f(x):
    values = np.array([x] + _near_ties())
    records, length = format_fixed7(values, b"\t")
    raw = records.view(np.uint8).reshape(len(values), -1)
    for v, row, n in zip(values.tolist(), raw, length.tolist()):
        assert row[:n].tobytes() == f"{v:.7f}".encode() + b"\t"


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.floats(-120, 5), st.floats(-1e12, 1e12)), min_size=1, max_size=40),
       st.lists(st.text(alphabet="ab词é\u00a0", min_size=1, max_size=12), min_size=1, max_size=6, unique=True))
def test_lines_are_the_f_strings(values, words):
    """Any words (long ones span several 8-byte stores) and any finite numbers, huge ones too."""
    from lmcore.ngram.arpa_text import WordPool, ngram_lines
    rng = np.random.default_rng(len(values))
    cols = [rng.integers(0, len(words), len(values)) for _ in range(3)]
    logp, bow = np.array([v[0] for v in values]), np.array([v[1] for v in values])
    got = ngram_lines(WordPool(words), cols, logp, bow).tobytes().decode("utf-8")
    want = "".join(f"{p:.7f}\t{words[a]} {words[b]} {words[c]}\t{w:.7f}\n"
                   for p, w, a, b, c in zip(logp, bow, *cols))
    assert got == want
    top = ngram_lines(WordPool(words), cols[:1], logp, None).tobytes().decode("utf-8")
    assert top == "".join(f"{p:.7f}\t{words[a]}\n" for p, a in zip(logp, cols[0]))


def test_probabilities_must_be_finite():
    from lmcore.ngram.arpa_text import WordPool, ngram_lines
    with pytest.raises(ValueError):
        ngram_lines(WordPool(["a"]), [np.array([0])], np.array([math.nan]), None)
