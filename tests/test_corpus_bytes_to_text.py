"""Bytes → text: every accepted encoding from real bytes, and every kind of bad input."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lmcore.corpus import MAX_BYTES, CorpusError, build_corpus, clean_text, decode_bytes

ZH_SIMPLIFIED = "我们今天去学校上课。老师说，明天会下雨，大家要带伞。小明和小红在图书馆看书，他们很喜欢读故事。"
ZH_TRADITIONAL = "我們今天去學校上課。老師說，明天會下雨，大家要帶傘。小明和小紅在圖書館看書，他們很喜歡讀故事。"
LATIN = "Café au lait, naïve résumé. The garçon said: voilà! Déjà vu in the crème brûlée."


@pytest.mark.parametrize(
    "text, codec",
    [
        (LATIN, "utf-8"),
        (ZH_SIMPLIFIED, "utf-8"),
        (ZH_SIMPLIFIED, "utf-8-sig"),
        (ZH_SIMPLIFIED, "utf-16"),  # with BOM
        (ZH_SIMPLIFIED, "utf-16-le"),
        (ZH_SIMPLIFIED, "utf-16-be"),
        (LATIN, "utf-16-le"),
        (ZH_SIMPLIFIED, "gbk"),
        (ZH_SIMPLIFIED, "gb18030"),
        (ZH_TRADITIONAL, "big5"),
        (LATIN, "latin-1"),
    ],
)
def test_each_encoding_decodes_to_the_original_text(text, codec):
    decoded, encoding = decode_bytes(text.encode(codec))
    assert decoded.lstrip("\ufeff") == text, encoding


def test_utf8_bom_is_reported_and_stripped():
    decoded, encoding = decode_bytes("\ufeffHello there. Bye now.".encode("utf-8"))
    assert (decoded, encoding) == ("Hello there. Bye now.", "utf-8-sig")


PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000") + bytes(range(256)) * 8


@pytest.mark.parametrize(
    "data, key",
    [
        (b"", "error.empty"),
        (b"   \n\t  \n", "error.empty"),
        (PNG, "error.binary"),
        (b"\x00\x01\x02\x03" * 500, "error.binary"),
        (b"One sentence only", "error.too_few_sentences"),
    ],
)
def test_bad_input_gives_the_clear_error(data, key):
    with pytest.raises(CorpusError) as caught:
        build_corpus(data, "bad")
    assert caught.value.key == key
    assert caught.value.message("en") and caught.value.message("zh") != caught.value.message("en")


def test_oversize_input_is_refused_before_decoding():
    with pytest.raises(CorpusError) as caught:
        decode_bytes(b"a" * (MAX_BYTES + 1))
    assert caught.value.key == "error.too_big"
    assert "50" in caught.value.message("en")


def test_control_characters_are_stripped_and_text_is_nfc():
    cleaned = clean_text("Cafe\u0301\x07 bell.\r\nNext\x1b line.")
    assert cleaned == "Café bell.\nNext line."


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=3000))
def test_arbitrary_bytes_give_a_corpus_or_the_clear_error(data):
    try:
        corpus = build_corpus(data, "fuzz")
    except CorpusError as error:
        assert error.message("en")
    else:
        sizes = (len(corpus.train), len(corpus.valid), len(corpus.test))
        n = sum(sizes)  # 80/10/10 with at least one sentence each (two sentences: the second is valid and test)
        held_out = max(1, round(0.1 * n))
        assert sizes == (1, 1, 1) or sizes == (n - 2 * held_out, held_out, held_out)


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=400))
def test_arbitrary_text_gives_a_corpus_or_the_clear_error(text):
    try:
        corpus = build_corpus(text.encode("utf-8"), "fuzz")
    except CorpusError as error:
        assert error.key.startswith("error.")
    else:
        assert all(tok.strip() for s in corpus.sentences for tok in s)


@pytest.mark.parametrize("n", [2, 3, 7, 10, 26, 101])
def test_the_split_is_80_10_10_with_at_least_one_sentence_each(n):
    corpus = build_corpus(" ".join(f"Sentence number {i} is here." for i in range(n)), "split")
    held_out = max(1, round(0.1 * n))
    expected = (1, 1, 1) if n == 2 else (n - 2 * held_out, held_out, held_out)  # two: the second is valid and test
    assert (len(corpus.train), len(corpus.valid), len(corpus.test)) == expected
