"""Corpus pipeline and Corpus page speed.

Prints: build time of a large upload (PTB train, 5 MB, if ../shared/data/ptb is there) against a
bare str.split() pass over the same text (the reference), and the Corpus page's cold and warm
rerun times in AppTest. Usage: python bench/corpus_page.py [PTB_DIR]
"""
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from streamlit.runtime import pages_manager  # noqa: E402

from lmcore.corpus import CorpusSettings, build_corpus  # noqa: E402
from tests.apptest_helpers import run_page  # noqa: E402


def main() -> None:
    ptb = Path(sys.argv[1] if len(sys.argv) > 1 else ROOT.parent / "shared" / "data" / "ptb") / "ptb.train.txt"
    if ptb.exists():
        data = ptb.read_bytes()
        start = time.perf_counter()
        corpus = build_corpus(data, "ptb", CorpusSettings(sentence_mode="lines"))
        build = time.perf_counter() - start
        start = time.perf_counter()
        reference_tokens = sum(len(line.split()) for line in data.decode().splitlines())
        reference = time.perf_counter() - start
        print(f"ptb_bytes: {len(data)}")
        print(f"ptb_tokens: {corpus.n_tokens} (str.split: {reference_tokens})")
        print(f"ptb_build_seconds: {build:.2f}")
        print(f"ptb_str_split_seconds: {reference:.3f}")
        print(f"build_vs_split_ratio: {build / reference:.1f}")
    pages_manager.PagesManager.uses_pages_directory = False
    start = time.perf_counter()
    at = run_page("corpus", "en")
    print(f"corpus_page_cold_seconds: {time.perf_counter() - start:.2f}")
    times = []
    for _ in range(10):
        start = time.perf_counter()
        at.run()
        times.append(time.perf_counter() - start)
    print(f"corpus_page_warm_rerun_ms: {1000 * statistics.median(times):.1f}")


if __name__ == "__main__":
    main()
