"""Bench: modified-KN 3- and 5-gram on Penn Treebank — exactness against KenLM, query speed
against KenLM's query code, and nltk.lm, every peer run in this same run.

python bench/ngram_ptb.py [PTB_DIR] [--lmplz PATH] [--repeats 15] [--nltk-sentences 3]

- exactness: our ARPA export read by the ``kenlm`` module gives our perplexity; with lmplz
  (``--lmplz`` or on the PATH) both tools build the same order-5 model from PTB train (its
  literal ``<unk>`` written ``UNKWORD``, which lmplz requires) and every log10 value and backoff
  of the two ARPA files is compared;
- query speed (same model, same lines of text, alternating runs, median and min): our
  ``NgramQuery.perplexity_of_lines`` of the test set (and of its first 100 sentences) per
  sentence, against ``kenlm.Model.score`` called sentence by sentence on our ARPA file (each
  built or loaded once, outside the timing; our build time is printed); our model's own batched
  ``perplexity`` of the split sentences as a second line;
- nltk.lm KneserNeyInterpolated order 3: fitted and timed here (its scoring on a few sentences).
Fit time against lmplz, whole process against whole process: bench/ngram_scale.py.
"""
from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lmcore.ngram import NgramModel, count_ngrams  # noqa: E402
from lmcore.ngram.__main__ import read_sentences  # noqa: E402
from lmcore.ngram.query import NgramQuery  # noqa: E402


def arpa_entries(path: Path) -> dict[str, tuple[float, float]]:
    """{n-gram: (log10 p, log10 bow or 0)} of an ARPA file (``<s>``'s unigram left out)."""
    out = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) >= 2 and parts[1] != "<s>":
                out[parts[1]] = (float(parts[0]), float(parts[2]) if len(parts) > 2 else 0.0)
    return out


def compare_with_lmplz(lmplz: str, train, test, folder: Path) -> None:
    """Order 5 by both tools on the same text; the largest difference of any stored value."""
    text = [["UNKWORD" if w == "<unk>" else w for w in s] for s in train]
    (folder / "train.txt").write_text("\n".join(" ".join(s) for s in text) + "\n", encoding="utf-8")
    with open(folder / "train.txt", "rb") as fin, open(folder / "lmplz.arpa", "wb") as fout:
        subprocess.run([lmplz, "-o", "5", "-S", "1G"], stdin=fin, stdout=fout, stderr=subprocess.DEVNULL, check=True)
    lm = NgramModel.fit(text, 5, "modified-kn")
    lm.to_arpa(folder / "ours.arpa")
    ours, peer = arpa_entries(folder / "ours.arpa"), arpa_entries(folder / "lmplz.arpa")
    common = ours.keys() & peer.keys()
    print(f"lmplz_order5_ngrams_ours_lmplz_common: {len(ours)} {len(peer)} {len(common)}")
    print(f"lmplz_order5_max_abs_diff_log10_prob: {max(abs(ours[g][0] - peer[g][0]) for g in common):.2e}")
    print(f"lmplz_order5_max_abs_diff_log10_backoff: {max(abs(ours[g][1] - peer[g][1]) for g in common):.2e}")
    print(f"lmplz_order5_unk_log10_prob_ours: {ours['<unk>'][0]:.7f}")
    print(f"lmplz_order5_unk_log10_prob_lmplz: {peer['<unk>'][0]:.7f}")
    mapped = [["UNKWORD" if w == "<unk>" else w for w in s] for s in test]
    print(f"lmplz_order5_test_ppl_ours: {lm.perplexity(mapped).ppl:.4f}")
    print(f"lmplz_order5_test_ppl_lmplz_model: {kenlm_perplexity(folder / 'lmplz.arpa', mapped):.4f}")


def kenlm_perplexity(path: Path, test) -> float:
    """Perplexity (OOVs included) of ``test`` by KenLM's query code reading an ARPA file."""
    import kenlm

    ken = kenlm.Model(str(path))
    log10 = sum(ken.score(" ".join(s), bos=True, eos=True) for s in test)
    return 10 ** (-log10 / sum(len(s) + 1 for s in test))


def query_speed(model: NgramModel, path: Path, test, repeats: int, label: str) -> None:
    """Seconds per sentence, alternating runs, the same lines of text to both: our ``NgramQuery``
    (built once, as ``kenlm.Model`` loads once) against ``kenlm.Model.score`` sentence by sentence;
    our model's own batched ``perplexity`` of the split sentences as a second line."""
    import kenlm

    ken = kenlm.Model(str(path))
    start = time.perf_counter()
    query = NgramQuery(model)
    print(f"{label}_ours_query_build_seconds: {time.perf_counter() - start:.3f}")
    print(f"{label}_ours_query_index_mb: {query.nbytes / 1e6:.1f}")
    lines = [" ".join(s) for s in test]
    assert abs(query.perplexity_of_lines(lines).log_prob / model.perplexity(test).log_prob - 1) < 1e-12
    runs: dict[str, list[float]] = {"ours_query_lines": [], "kenlm_one_by_one": [], "ours_model_batched": []}
    for _ in range(repeats):
        for name, call in (("ours_query_lines", lambda: query.perplexity_of_lines(lines)),
                           ("kenlm_one_by_one", lambda: sum(ken.score(line, bos=True, eos=True) for line in lines)),
                           ("ours_model_batched", lambda: model.perplexity(test))):
            start = time.perf_counter()
            call()
            runs[name].append((time.perf_counter() - start) / len(test))
    for name, values in runs.items():
        print(f"{label}_{name}_seconds_per_sentence_median: {statistics.median(values):.2e}")
        print(f"{label}_{name}_seconds_per_sentence_min: {min(values):.2e}")
    peer = runs["kenlm_one_by_one"]
    for name in ("ours_query_lines", "ours_model_batched"):
        ours = runs[name]
        print(f"{label}_{name}_speed_ratio_kenlm_time_over_ours_median: {statistics.median(peer) / statistics.median(ours):.2f}")
        print(f"{label}_{name}_speed_ratio_kenlm_time_over_ours_min: {min(peer) / min(ours):.2f}")


def nltk_seconds_per_sentence(train, sentences, n_measured: int) -> tuple[float, float]:
    """(fit seconds, scoring seconds per sentence) of nltk KN order 3 (measured here)."""
    from nltk.lm import KneserNeyInterpolated
    from nltk.lm.preprocessing import pad_both_ends, padded_everygram_pipeline
    from nltk.util import ngrams

    start = time.perf_counter()
    text, vocab = padded_everygram_pipeline(3, train)
    lm = KneserNeyInterpolated(3)
    lm.fit(text, vocab)
    fit = time.perf_counter() - start
    start = time.perf_counter()
    for sent in sentences[:n_measured]:
        sum(lm.logscore(g[-1], g[:-1]) for g in ngrams(pad_both_ends(sent, n=3), 3))
    return fit, (time.perf_counter() - start) / n_measured


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("ptb_dir", nargs="?", default=str(ROOT.parent / "shared" / "data" / "ptb"))
    ap.add_argument("--lmplz", help="KenLM's lmplz (default: on the PATH; none: no ARPA comparison)")
    ap.add_argument("--repeats", type=int, default=15, help="alternating query-speed runs")
    ap.add_argument("--nltk-sentences", type=int, default=3,
                    help="how many of the first 100 test sentences nltk scores (≈2 s each); 0: skip nltk")
    args = ap.parse_args()
    d = Path(args.ptb_dir)
    train, test = read_sentences(d / "ptb.train.txt"), read_sentences(d / "ptb.test.txt")
    print(f"train_words: {sum(map(len, train))}")
    print(f"test_tokens_with_eos: {sum(len(s) + 1 for s in test)}")
    start = time.perf_counter()
    counts = count_ngrams(train, 5)
    print(f"ours_in_process_count_seconds_orders_1_to_5: {time.perf_counter() - start:.3f}")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for order in (3, 5):
            start = time.perf_counter()
            lm = NgramModel(counts, order, "modified-kn")
            print(f"order{order}_ours_in_process_smoothing_seconds: {time.perf_counter() - start:.3f}")
            result = lm.perplexity(test)
            print(f"order{order}_test_ppl: {result.ppl:.2f}")
            print(f"order{order}_test_oov: {result.n_oov}")
            lm.to_arpa(folder / f"o{order}.arpa")
            ken = kenlm_perplexity(folder / f"o{order}.arpa", test)
            print(f"order{order}_kenlm_query_ppl_on_our_arpa: {ken:.2f}")
            print(f"order{order}_kenlm_query_vs_ours_relative_diff: {abs(ken / result.ppl - 1):.2e}")
            query_speed(lm, folder / f"o{order}.arpa", test, args.repeats, f"order{order}_test_set")
            query_speed(lm, folder / f"o{order}.arpa", test[:100], args.repeats, f"order{order}_first_100")
            if order == 3:
                start = time.perf_counter()
                for sent in test[:100]:
                    lm.sentence_logprobs(sent)
                one = (time.perf_counter() - start) / 100
                print(f"order3_ours_one_by_one_seconds_per_sentence_100: {one:.2e}")
        lmplz = args.lmplz or shutil.which("lmplz")
        if lmplz:
            compare_with_lmplz(lmplz, train, test, folder)
        else:
            print("lmplz: not found (no ARPA comparison)")
    if args.nltk_sentences:
        fit, per_sentence = nltk_seconds_per_sentence(train, test[:100], args.nltk_sentences)
        print(f"nltk_kn_interp_order3_fit_seconds_full_train: {fit:.1f}")
        print(f"nltk_order3_sentences_measured: {args.nltk_sentences}")
        print(f"nltk_order3_seconds_per_sentence: {per_sentence:.3f}")
        print(f"speedup_ours_one_by_one_vs_nltk_order3: {per_sentence / one:.0f}")


if __name__ == "__main__":
    main()
