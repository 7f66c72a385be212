"""The packed-sort counting and the byte-level file reader against plain Python (property tests).

Oracle: a ``collections.Counter`` of the n-grams of every padded sentence ``<s> w1 … </s>`` (one
``<s>``; literal ``<s>``/``</s>`` inside a sentence dropped, as the engine does), and Python's
own ``line.split()`` over the file's lines.
"""
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lmcore.ngram import MAX_ORDER, count_ngrams, count_ngrams_file
from lmcore.ngram import sorting
from lmcore.ngram.textio import read_token_file

WORDS = ["a", "b", "c", "dd", "<unk>", "<s>", "</s>", "é", "词"]
sentences_st = st.lists(st.lists(st.sampled_from(WORDS), max_size=9), min_size=1, max_size=25)
SETTINGS = settings(max_examples=40, deadline=None)


def plain_counts(sentences, order):
    grams = Counter()
    for s in sentences:
        padded = ["<s>"] + [w for w in s if w not in ("<s>", "</s>")] + ["</s>"]
        for i in range(len(padded) - order + 1):
            grams[tuple(padded[i:i + order])] += 1
    return grams


def table_counts(counts, order):
    """{n-gram tuple: count} of the table of ``order``, decoded through the context rows; also
    checks the keys are strictly increasing and every suffix link points at the suffix."""
    names = counts.vocab.words + ["<s>"]
    decoded = [[(names[w],) for w in range(len(names))]]
    for k in range(2, order + 1):
        table = counts.tables[k - 1]
        assert np.all(np.diff(table.keys) > 0)
        prev = decoded[-1]
        rows = [prev[c] + (names[w],) for c, w in zip(table.ctx.tolist(), table.word.tolist())]
        lower = decoded[-1]
        assert [lower[s] for s in table.suffix.tolist()] == [g[1:] for g in rows]
        decoded.append(rows)
    table = counts.tables[order - 1]
    return {g: c for g, c in zip(decoded[order - 1], table.count.tolist()) if c > 0}


@SETTINGS
@given(sentences_st)
def test_counts_equal_a_plain_counter_for_every_order(sentences):
    counts = count_ngrams(sentences, MAX_ORDER)
    for order in range(1, MAX_ORDER + 1):
        assert table_counts(counts, order) == dict(plain_counts(sentences, order)), order


@SETTINGS
@given(sentences_st)
def test_counts_split_into_buckets_are_the_same(sentences):
    """When key and position need more than 64 bits the occurrences are sorted in buckets of the
    key's top bits; forcing 2 such bits on small texts must not change a single count."""
    whole = count_ngrams(sentences, 4)
    old = sorting.MIN_EXTRA_BITS
    sorting.MIN_EXTRA_BITS = 2
    try:
        split = count_ngrams(sentences, 4)
    finally:
        sorting.MIN_EXTRA_BITS = old
    for a, b in zip(whole.tables, split.tables):
        np.testing.assert_array_equal(a.keys, b.keys)
        np.testing.assert_array_equal(a.count, b.count)
        np.testing.assert_array_equal(a.suffix, b.suffix)


SPACES = [" ", "  ", "\t", "\x0b", "\x0c", "\x1c", "\xa0", "\u3000", "\u2009", "\x85", " \t "]
NEWLINES = ["\n", "\r\n", "\r", "\n\n", "\n \n"]


@st.composite
def raw_text(draw):
    """Text with every kind of whitespace ``str.split`` knows and every line end ``open`` knows."""
    parts = []
    for _ in range(draw(st.integers(0, 12))):
        words = draw(st.lists(st.sampled_from(["x", "yy", "é", "词语", "<unk>", "a\u200bb", "c\x07d"]), max_size=6))
        seps = draw(st.lists(st.sampled_from(SPACES), min_size=len(words) + 1, max_size=len(words) + 1))
        parts.append(seps[0] + "".join(w + s for w, s in zip(words, seps[1:])))
        parts.append(draw(st.sampled_from(NEWLINES)))
    return "".join(parts)


@SETTINGS
@given(raw_text(), st.sampled_from([3, 7, 64, 1 << 20]))
def test_file_reader_splits_like_python(tmp_path_factory, text, block):
    """Lines end at \\n, \\r or \\r\\n (blocks may cut anywhere a line ends); tokens split at
    every ``str.isspace`` character; blank lines are not sentences."""
    path = tmp_path_factory.mktemp("txt") / "t.txt"
    path.write_bytes(text.encode("utf-8"))
    with open(path, encoding="utf-8") as f:
        expected = [line.split() for line in f if line.strip()]
    tokens = read_token_file(path, block_bytes=block)
    assert tokens.lengths.tolist() == [len(s) for s in expected]
    assert [tokens.types[i] for i in tokens.ids.tolist()] == [w for s in expected for w in s]
    first_seen = list(dict.fromkeys(w for s in expected for w in s))
    assert tokens.types == first_seen


def test_file_counts_equal_list_counts(tmp_path):
    rng = np.random.default_rng(5)
    sentences = [list(rng.choice(["a", "b", "c", "<unk>", "é"], size=int(rng.integers(0, 8)))) for _ in range(200)]
    sentences = [s for s in sentences if s]
    (tmp_path / "t.txt").write_text("\n".join(" ".join(s) for s in sentences) + "\n", encoding="utf-8")
    a, b = count_ngrams(sentences, 5), count_ngrams_file(tmp_path / "t.txt", 5)
    assert a.vocab.words == b.vocab.words and a.unk_trained == b.unk_trained
    np.testing.assert_array_equal(a.vocab.kenlm_ids, b.vocab.kenlm_ids)
    for x, y in zip(a.tables, b.tables):
        np.testing.assert_array_equal(x.keys, y.keys)
        np.testing.assert_array_equal(x.count, y.count)


def test_reader_rejects_invalid_utf8(tmp_path):
    (tmp_path / "bad.txt").write_bytes(b"ok line\nbad \xff\xfe bytes\n")
    with pytest.raises(ValueError, match="UTF-8"):
        read_token_file(tmp_path / "bad.txt")
