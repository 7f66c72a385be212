"""Sentences, tokens, vocabulary with <unk>, and the deterministic split."""
import pytest

from lmcore.corpus import UNK, CorpusSettings, Vocabulary, build_corpus, split_indices, split_sentences, tokenize
from lmcore.samples import SAMPLES, load_sample


def test_english_and_chinese_sentence_ends_keep_closing_quotes():
    text = 'He said "Hi." Then Mr. Okafor left. Pi is 3.14 today!\n我们去学校。他说：“好！”然后走了。没有句号'
    assert split_sentences(text) == [
        'He said "Hi."', "Then Mr. Okafor left.", "Pi is 3.14 today!", "我们去学校。", "他说：“好！”", "然后走了。", "没有句号",
    ]


def test_line_mode_takes_every_non_empty_line():
    assert split_sentences("a b. c d.\n\n e f \n", mode="lines") == ["a b. c d.", "e f"]


@pytest.mark.parametrize(
    "tokenizer, lowercase, expected",
    [
        ("words", False, ["Don't", "stop", ",", "it's", "3.14", "o'clock", "!", "你", "好"]),
        ("whitespace", False, ["Don't", "stop,", "it's", "3.14", "o'clock!", "你好"]),
        ("words", True, ["don't", "stop", ",", "it's", "3.14", "o'clock", "!", "你", "好"]),
        ("chars", False, list("Don't") + ["␣"] + list("stop,") + ["␣"] + list("it's") + ["␣"] + list("3.14") + ["␣"] + list("o'clock!") + ["␣"] + list("你好")),
    ],
)
def test_tokenizers(tokenizer, lowercase, expected):
    assert tokenize("Don't stop, it's 3.14  o'clock! 你好", tokenizer, lowercase) == expected


def test_jieba_segments_chinese_words():
    tokens = tokenize("我们今天去图书馆看书。", "jieba")
    assert "".join(tokens) == "我们今天去图书馆看书。"
    assert "图书馆" in tokens and len(tokens) < len("我们今天去图书馆看书。")


def test_vocabulary_min_count_and_cap_map_the_rest_to_unk():
    sentences = [["a", "b", "a"], ["a", "c", "b"], ["d"]]
    vocab = Vocabulary.build(sentences, min_count=2)
    assert vocab.itos == [UNK, "a", "b"]
    assert vocab.map(["a", "c", "zzz"]) == ["a", UNK, UNK]
    assert Vocabulary.build(sentences, max_size=1).itos == [UNK, "a"]
    assert vocab.encode(["b", "q"]) == [2, 0]


@pytest.mark.parametrize("n", [2, 3, 10, 101, 5000])
def test_split_is_a_deterministic_partition(n):
    train, valid, test = split_indices(n)
    assert (train, valid, test) == split_indices(n)
    assert valid and test and train
    if n > 2:
        assert sorted(train + valid + test) == list(range(n))
        assert abs(len(train) - 0.8 * n) <= 2


def test_corpus_split_and_unk_mapping_are_consistent():
    text = "\n".join(f"sentence number {i} says word{i % 7} ." for i in range(200))
    corpus = build_corpus(text, "numbers", CorpusSettings(sentence_mode="lines", min_count=2))
    assert len(corpus.train) + len(corpus.valid) + len(corpus.test) == 200
    train_tokens = {tok for s in corpus.train for tok in s}
    for sentence, mapped in zip(corpus.test, corpus.mapped("test")):
        for tok, m in zip(sentence, mapped):
            assert m == (tok if tok in corpus.vocab else UNK)
            if m == UNK:
                assert tok not in train_tokens or corpus.vocab.counts[tok] < 2
    assert build_corpus(text, "again", CorpusSettings(sentence_mode="lines", min_count=2)).key == corpus.key


def test_a_sentence_with_nothing_to_map_is_held_once_and_pickled_once():
    import pickle

    text = "\n".join(f"the cat sat on mat {i % 3} ." if i % 10 else f"a rare word{i} here ." for i in range(300))
    corpus = build_corpus(text, "shared", CorpusSettings(sentence_mode="lines", min_count=2))
    for split in ("train", "valid", "test"):
        for sentence, mapped in zip(corpus.split(split), corpus.mapped(split)):
            assert mapped == corpus.vocab.map(sentence)
            assert (mapped is sentence) == (UNK not in mapped)
    assert any(UNK in s for s in corpus.mapped("train")) and any(UNK not in s for s in corpus.mapped("test"))
    again = pickle.loads(pickle.dumps(corpus))
    assert again.mapped("test") == corpus.mapped("test")
    assert all((m is s) == (UNK not in m) for s, m in zip(again.test, again.mapped("test")))


@pytest.mark.parametrize("name", SAMPLES)
def test_built_in_samples_are_large_enough(name):
    corpus = load_sample(name)
    assert corpus.n_tokens >= 10_000
    assert corpus.language == ("zh" if name == "chinese" else "en")
    assert (corpus.true_entropy is not None) == (name == "synthetic")
