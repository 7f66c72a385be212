"""Toy tasks: exact answers, Chinese numerals, held-out split, padded batches."""
import numpy as np
import pytest

from lmcore.seq2seq.numerals import chinese_numeral
from lmcore.seq2seq.tasks import TASKS, is_heldout, make_batch, parse_source, sample_pairs, target_of
from lmcore.seq2seq.vocab import BOS_ID, EOS_ID, PAD_ID, decode, encode


@pytest.mark.parametrize("n, reading", [  # worked examples of standard Chinese number reading
    (0, "零"), (7, "七"), (10, "十"), (15, "十五"), (20, "二十"), (101, "一百零一"), (110, "一百一十"),
    (1005, "一千零五"), (1010, "一千零一十"), (2300, "二千三百"), (10010, "一万零一十"),
    (100000, "十万"), (110000, "十一万"), (305000, "三十万五千"), (1000100, "一百万零一百"),
    (12345678, "一千二百三十四万五千六百七十八"), (20000001, "二千万零一"),
])
def test_chinese_numerals(n, reading):
    assert "".join(chinese_numeral(n)) == reading


def test_numerals_have_no_double_or_trailing_zero():
    rng = np.random.default_rng(0)
    for n in rng.integers(1, 99_999_999, size=2000):
        text = "".join(chinese_numeral(int(n)))
        assert "零零" not in text and not text.endswith("零")


def test_targets():
    x = list("30512")
    assert target_of("copy", x) == x
    assert target_of("reverse", x) == x[::-1]
    assert target_of("sort", x) == list("01235")
    assert "".join(target_of("translate", x)) == "三万零五百一十二"


@pytest.mark.parametrize("task", TASKS)
def test_training_pairs_are_never_held_out(task):
    rng = np.random.default_rng(3)
    train = sample_pairs(task, 300, range(2, 7), rng, heldout=False)
    test = sample_pairs(task, 100, range(2, 7), rng, heldout=True)
    assert not any(is_heldout(x) for x, _ in train) and all(is_heldout(x) for x, _ in test)
    assert all(y == target_of(task, x) for x, y in train + test)
    assert {len(x) for x, _ in train} == set(range(2, 7))


def test_batch_layout_is_teacher_forcing():
    pairs = [(list("12"), list("21")), (list("345"), list("543"))]
    b = make_batch(pairs)
    assert b.src.tolist() == [encode("12") + [PAD_ID], encode("345")]
    assert b.src_len.tolist() == [2, 3]
    assert b.tgt_in[0].tolist() == [BOS_ID, *encode("21"), PAD_ID]
    assert b.tgt_out[0].tolist() == [*encode("21"), EOS_ID, PAD_ID]
    assert b.tgt_in[1, 1:].tolist() == b.tgt_out[1, :-1].tolist()
    assert decode(b.tgt_out[1].tolist()) == list("543")


@pytest.mark.parametrize("task, text, expected", [
    ("reverse", " 0123 ", list("0123")), ("reverse", "12a", None), ("reverse", "1", None),
    ("reverse", "１２３", None), ("translate", "0123", None), ("translate", "9123", list("9123")),
    ("copy", "1234567", None),
])
def test_parse_source(task, text, expected):
    assert parse_source(task, text, 2, 6) == expected
