"""Texts that already mark unknown words and sentence boundaries (Penn Treebank, WikiText…): a
literal <unk> is the models' own <unk>, one token; <s> and </s> are sentence boundaries."""
import pytest

from lmcore.corpus import UNK, CorpusSettings, build_corpus, split_sentences, tokenize
from tests.apptest_helpers import errors, run_page

# Penn Treebank style (Mikolov's preprocessing): lower case, numbers as N, rare words as <unk>
PTB_LIKE = "\n".join([
    " pierre <unk> N years old will join the board as a nonexecutive director nov. N ",
    " mr. <unk> is chairman of <unk> n.v. the dutch publishing group ",
    " the <unk> company said it expects to report a loss ",
    " consumers may want to move their telephones a little closer to the tv set ",
    " <unk> <unk> watching abc 's monday night football can now vote during <unk> for the greatest play in N years ",
    " two weeks ago viewers of several nbc <unk> consumer segments started calling a N number for advice ",
] * 4)


@pytest.mark.parametrize("tokenizer", ["words", "whitespace", "chars", "jieba"])
@pytest.mark.parametrize("marker", ["<unk>", "<UNK>", "<Unk>"])
def test_a_literal_unk_is_one_unk_token(tokenizer, marker):
    tokens = tokenize(f"<s> go {marker} now </s>", tokenizer, lowercase=False)
    assert tokens.count(UNK) == 1 and not {"<", ">", "unk", "UNK", "<s>", "</s>", "s"} & set(tokens)
    assert "".join(t for t in tokens if t != UNK).replace("␣", "").replace(" ", "") == "gonow"


def test_end_markers_end_sentences():
    assert split_sentences("a b </s> c d </s>\n<s> e f </s>") == ["a b", "c d", "<s> e f"]
    assert split_sentences("a b </S> c d", "lines") == ["a b", "c d"]


@pytest.mark.parametrize("tokenizer", ["words", "whitespace"])
def test_ptb_text_keeps_its_vocabulary(tokenizer):
    corpus = build_corpus(PTB_LIKE, "ptb-like", CorpusSettings(tokenizer=tokenizer, sentence_mode="lines"))
    literal = PTB_LIKE.count("<unk>")
    tokens = [tok for s in corpus.sentences for tok in s]
    assert tokens.count(UNK) == literal == corpus.markers["<unk>"]
    assert not {"<", ">", "unk"} & set(tokens)
    assert corpus.vocab.itos[0] == UNK and corpus.vocab.counts[UNK] == sum(s.count(UNK) for s in corpus.train)
    if tokenizer == "whitespace":
        assert len(tokens) == len(PTB_LIKE.split())


def test_corpus_page_says_how_many_markers_it_found():
    at = run_page("corpus", "en")
    data = (PTB_LIKE + "\n<s> the end </s> of it </s>\n").encode()
    at.sidebar.get("file_uploader")[0].set_value(("ptb.txt", data, "text/plain"))
    at.run()
    assert errors(at) == []
    notes = " ".join(i.value for i in at.info)
    assert f"{PTB_LIKE.count('<unk>'):,} literal `<unk>`" in notes and "3 literal `<s>` / `</s>`" in notes
