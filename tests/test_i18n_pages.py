"""Both languages whole: no English words in the formulas of a Chinese page, the continuation-count
example taken from the corpus on screen, no "Infinity" in a table, no emoji a plain font draws as a box."""
import re
from collections import Counter, defaultdict

import pytest

from lmcore.figures.labels import number_text, tex_words
from lmcore.i18n import catalogue
from tests.apptest_helpers import each_part, errors, run_page, setting
from tests.test_page_controls import shown
from ui.navigation import PARTS

ENGLISH_FORMULA_WORDS = re.compile(r"\\text\{\s*(if|otherwise|threshold)\s*\}|_\{smooth\}")
# characters shown as colour emoji by default (Emoji_Presentation): boxes where no emoji font is installed
EMOJI = re.compile("[\u231a\u231b\u23e9-\u23ec\u23f0\u23f3\u25fd\u25fe\u2614\u2615\u2648-\u2653\u267f\u2693"
                   "\u26a1\u26aa\u26ab\u26bd\u26be\u26c4\u26c5\u26ce\u26d4\u26ea\u26f2\u26f3\u26f5\u26fa\u26fd"
                   "\u2705\u270a\u270b\u2728\u274c\u274e\u2753-\u2755\u2757\u2795-\u2797\u27b0\u27bf\u2b1b\u2b1c"
                   "\u2b50\u2b55\ufe0f\U0001f000-\U0001faff]")
GRADIENT_CLIP = (r"\hat{g} \leftarrow \begin{cases} \dfrac{\text{threshold}}{\|\hat{g}\|}\,\hat{g} & \text{if } "
                 r"\|\hat{g}\| > \text{threshold} \\ \hat{g} & \text{otherwise}\end{cases}")


def test_formula_words_follow_the_language():
    zh = tex_words(GRADIENT_CLIP, "zh")
    assert not ENGLISH_FORMULA_WORDS.search(zh) and "阈值" in zh and "否则" in zh and r"\text{若 }" in zh
    assert tex_words(GRADIENT_CLIP, "en") == GRADIENT_CLIP
    token = r"P_{smooth}(\text{otherwise}\mid h)"  # a corpus word stays as it is
    assert tex_words(token, "zh", ("smooth",)) == r"P_{\text{平滑}}(\text{otherwise}\mid h)"


def test_number_cells_never_read_infinity():
    assert [number_text(v) for v in (float("inf"), -float("inf"), 12.345)] == ["∞", "−∞", "12.35"]


# files owned elsewhere that still hold an emoji (boxes without an emoji font), with their fix:


def test_no_string_or_page_relies_on_an_emoji_font():
    from pathlib import Path

    found = {k: pair for k, pair in catalogue().items() if any(EMOJI.search(s) for s in pair)}
    assert found == {}
    for key in ("seq2seq.match_line", "seq2seq.mismatch_line"):  # the ✓/✗ of the seq2seq page, as icons
        assert all(":material/" in s for s in catalogue()[key])
    root = Path(__file__).resolve().parents[1]
    files = [*root.glob("app_pages/*.py"), *root.glob("lmcore/**/*.py"), *root.glob("ui/*.py"), *root.glob("server/*.py"), root / "app.py"]
    with_emoji = {str(f.relative_to(root)) for f in files if EMOJI.search(f.read_text(encoding="utf-8"))}
    assert with_emoji == set()


def _expected_example(sentences):
    """Brute force: the word (letters only, C ≥ 5) with the largest C(w) / #distinct left neighbours."""
    count, left = Counter(), defaultdict(set)
    for s in sentences:
        for prev, w in zip(["<s>"] + s, s):
            count[w] += 1
            left[w].add(prev)
    words = [w for w in count if w.isalpha() and count[w] >= 5]
    return max(words, key=lambda w: (count[w] / len(left[w]), -list(count).index(w)))


@pytest.mark.parametrize("source", ["chinese", "english"])
def test_ngram_page_in_chinese_speaks_chinese_and_uses_the_corpus_example(source):
    at = run_page("ngram", "zh", query={"n": "3"})
    at.session_state["ngram_formula_open"] = True  # kept open in every part (app_pages/ngram.py's KEPT)
    at.sidebar.radio(key=setting(at, "source")).set_value(source).run()
    assert errors(at) == []
    latex, headers, captions = [], [], []
    for _ in each_part(at, "ngram"):
        assert errors(at) == []
        latex += [el.value for el in at.get("latex")]
        headers += [h.value for h in at.subheader]
        captions += [c.value for c in at.caption]
    assert latex
    for formula in latex:
        assert not ENGLISH_FORMULA_WORDS.search(formula), formula
    corpus = at.session_state["corpus"]
    word = _expected_example(corpus.mapped("train"))
    assert f"“{word}”" in " ".join(headers) and not any("Francisco" in h for h in headers)
    assert any(f"“{word}”" in c for c in captions)


@pytest.mark.parametrize("page, query", [("chain_rule", {"method": "mle", "n": "3"}), ("ngram", {"n": "2"}),
                                         ("decoding", {"src": "ngram"}), ("corpus", {})])
def test_no_infinity_or_nan_on_a_chinese_page(page, query):
    at = run_page(page, "zh", query=query)
    if page == "ngram":  # its formulas too
        at.session_state["ngram_formula_open"] = True
        at.run()
    assert errors(at) == []
    seen = [shown(at)] + ([shown(at) for _ in each_part(at, page)] if page in PARTS else [])
    text = "\n".join(s for part in seen for s in part if not s.startswith("chart:"))
    assert not re.search(r"\b(Infinity|NaN|inf|nan)\b", text)


def test_gradients_page_formulas_speak_chinese():
    at = run_page("gradients", "zh")
    assert errors(at) == []
    formulas = [el.value for _ in each_part(at, "gradients") for el in at.get("latex")]
    assert any(r"\hat{g}" in f for f in formulas)  # the clipping rule is there
    assert [f for f in formulas if ENGLISH_FORMULA_WORDS.search(f)] == []
