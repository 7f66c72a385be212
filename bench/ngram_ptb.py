"""Bench: modified-KN 3- and 5-gram on Penn Treebank vs KenLM's figures and nltk.lm's speed.

python bench/ngram_ptb.py [PTB_DIR] [--nltk-sentences 3]

References: KenLM lmplz (C++, same 2-core machine class) fits PTB train in ≈1.9 s (order 3) /
≈2.3 s (order 5) with test perplexity 148.28 / 141.19 (not runnable here: lmplz is not installed,
so its figures are quoted); KenLM's query code (the kenlm module) reads our 5-gram ARPA export and
scores the test set in this run. nltk.lm KneserNeyInterpolated order 3 is fitted and timed in this run.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lmcore.ngram import NgramModel  # noqa: E402
from lmcore.ngram.__main__ import read_sentences  # noqa: E402

KENLM_PPL = {3: 148.28, 5: 141.19}
KENLM_FIT_SECONDS = {3: 1.9, 5: 2.3}


def nltk_seconds_per_sentence(train, sentences, n_measured: int) -> tuple[float, float, int]:
    """(fit seconds, scoring seconds per sentence, sentences measured) of nltk KN order 3."""
    from nltk.lm import KneserNeyInterpolated
    from nltk.lm.preprocessing import padded_everygram_pipeline, pad_both_ends
    from nltk.util import ngrams

    start = time.perf_counter()
    text, vocab = padded_everygram_pipeline(3, train)
    lm = KneserNeyInterpolated(3)
    lm.fit(text, vocab)
    fit = time.perf_counter() - start
    start = time.perf_counter()
    for sent in sentences[:n_measured]:
        sum(lm.logscore(g[-1], g[:-1]) for g in ngrams(pad_both_ends(sent, n=3), 3))
    return fit, (time.perf_counter() - start) / n_measured, n_measured


def kenlm_on_our_arpa(model: NgramModel, test) -> float:
    """Perplexity of ``test`` by KenLM's own query code reading our ARPA export (measured here)."""
    import kenlm

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "model.arpa"
        model.to_arpa(path)
        ken = kenlm.Model(str(path))
    log10 = sum(ken.score(" ".join(s), bos=True, eos=True) for s in test)
    return 10 ** (-log10 / sum(len(s) + 1 for s in test))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("ptb_dir", nargs="?", default=str(ROOT.parent / "shared" / "data" / "ptb"))
    ap.add_argument("--nltk-sentences", type=int, default=3,
                    help="how many of the 100 sentences nltk scores (≈2.3 s each); the rest is extrapolated")
    args = ap.parse_args()
    d = Path(args.ptb_dir)
    train, test = read_sentences(d / "ptb.train.txt"), read_sentences(d / "ptb.test.txt")
    print(f"train_words: {sum(map(len, train))}")
    print(f"test_tokens_with_eos: {sum(len(s) + 1 for s in test)}")
    hundred = test[:100]
    models = {}
    for order in (3, 5):
        start = time.perf_counter()
        lm = NgramModel.fit(train, order, "modified-kn")
        fit = time.perf_counter() - start
        start = time.perf_counter()
        result = lm.perplexity(test)
        score = time.perf_counter() - start
        models[order] = lm
        print(f"order{order}_fit_seconds: {fit:.3f}")
        print(f"order{order}_kenlm_lmplz_fit_seconds_quoted: {KENLM_FIT_SECONDS[order]}")
        print(f"order{order}_fit_ratio_vs_lmplz: {fit / KENLM_FIT_SECONDS[order]:.2f}")
        print(f"order{order}_test_scoring_seconds: {score:.4f}")
        print(f"order{order}_test_ppl: {result.ppl:.2f}")
        print(f"order{order}_test_ppl_excl_oov: {result.ppl_excl_oov:.2f}")
        print(f"order{order}_test_oov: {result.n_oov}")
        print(f"order{order}_kenlm_ppl_quoted: {KENLM_PPL[order]}")
        print(f"order{order}_ppl_relative_diff_vs_kenlm: {abs(result.ppl / KENLM_PPL[order] - 1):.5f}")

    kenlm_ppl = kenlm_on_our_arpa(models[5], test)
    print(f"order5_kenlm_query_ppl_on_our_arpa: {kenlm_ppl:.2f}")
    print(f"order5_kenlm_query_vs_ours_relative_diff: {abs(kenlm_ppl / models[5].perplexity(test).ppl - 1):.2e}")

    lm3 = models[3]
    start = time.perf_counter()
    lm3.perplexity(hundred)
    ours_batch = (time.perf_counter() - start) / len(hundred)
    start = time.perf_counter()
    for sent in hundred:
        lm3.sentence_logprobs(sent)
    ours_loop = (time.perf_counter() - start) / len(hundred)
    print(f"ours_order3_seconds_per_sentence_batched_100: {ours_batch:.2e}")
    print(f"ours_order3_seconds_per_sentence_one_by_one_100: {ours_loop:.2e}")
    fit, nltk_per_sentence, measured = nltk_seconds_per_sentence(train, hundred, args.nltk_sentences)
    print(f"nltk_kn_interp_order3_fit_seconds_full_train: {fit:.1f}")
    print(f"nltk_sentences_measured: {measured} (of the same 100; the rest extrapolated)")
    print(f"nltk_order3_seconds_per_sentence: {nltk_per_sentence:.3f}")
    print(f"nltk_order3_seconds_100_sentences_extrapolated: {nltk_per_sentence * 100:.1f}")
    print(f"speedup_vs_nltk_batched: {nltk_per_sentence / ours_batch:.0f}")
    print(f"speedup_vs_nltk_one_by_one: {nltk_per_sentence / ours_loop:.0f}")


if __name__ == "__main__":
    main()
