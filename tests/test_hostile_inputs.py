"""Inputs a shared classroom server must survive on every page: bad links and hostile or tiny uploads."""
import html
import re
from pathlib import Path

import pytest

from lmcore.corpus import build_corpus
from lmcore.corpus.limits import APP_LIMITS, CorpusLimits
from lmcore.corpus.errors import CorpusError
from lmcore.samples import DEFAULT_SYNTHETIC_SENTENCES
from lmcore.teaching import LESSONS
from lmcore.teaching.course import slide_param
from tests.apptest_helpers import errors, run_page, setting
from ui.navigation import PAGES, PARTS
from ui.state import md_text, parse_param

ROOT = Path(__file__).resolve().parents[1]
STEMS = [stem for stem, _, _ in PAGES]
TEACHING_STEMS = [stem for stem in STEMS if "questions" in PARTS.get(stem, ())]  # questions part, projector slides


def params_read() -> set[str]:
    """Every URL parameter the app reads (``query_param("name", ...)`` in app.py, ui/, server/, app_pages/)."""
    files = [ROOT / "app.py", *(f for d in ("ui", "server", "app_pages") for f in (ROOT / d).rglob("*.py"))]
    return {name for f in files for name in re.findall(r"query_param\(\s*\"(\w+)\"", f.read_text(encoding="utf-8"))}


# every parameter any page reads from the URL, each with a value it must reject
BAD_LINK = {
    "lang": "xx", "corpus": "synthetic", "sents": "7", "n": "abc", "k": "-3", "L": "1e9", "alpha": "nan",
    "pruned": "99", "src": "<script>alert(1)</script>", "T": "7", "kind": "x", "s1": "inf", "act": "x", "p": "-1",
    "sig": "x", "sort": "x", "model": "x", "s": "99999", "task": "x", "delta": "-1", "d": "5", "method": "x",
    "top": "7", "prompt": "x" * 2000, "x": "abc", "present": "maybe", "part": "<img src=x onerror=alert(1)>",
    "slide": "../" * 50, "qseed": "-5",
}

UPLOADS = {
    "long_token": ("long.txt", (("x" * 10_000 + " ") * 400).encode()),
    "ten_sentences": ("ten.txt", " ".join(f"Sentence number {i} is short." for i in range(10)).encode()),
    "one_long_sentence": ("one.txt", ("word " * 30 + ". And again.").encode()),
    "markdown_name": ("**bold** [link](http://example.com) $x$.txt", b"The cat sat. The dog ran. A bird sang. " * 20),
}


def test_the_bad_link_has_a_value_for_every_parameter_the_app_reads():
    assert "qseed" in params_read() and set(BAD_LINK) == params_read()


@pytest.mark.parametrize("stem", STEMS)
def test_a_link_with_bad_values_for_every_parameter_opens_the_page_with_defaults(stem):
    at = run_page("home", "en", query=BAD_LINK)
    assert any("sents" in toast.value for toast in at.toast)  # the fallback is said, not silent
    if stem != "home":
        at.switch_page(f"app_pages/{stem}.py").run()
    assert errors(at) == []
    assert at.session_state["lang"] == "en" and at.session_state["source"] == "synthetic"
    assert len(at.session_state["corpus"].sentences) == DEFAULT_SYNTHETIC_SENTENCES  # sents=7: not a slider value


@pytest.mark.parametrize("qseed", ["-5", pytest.param("9" * 400, id="400-nines"), "1e3", "0x10"])
@pytest.mark.parametrize("stem", TEACHING_STEMS)
def test_a_bad_question_seed_on_a_questions_part_falls_back_to_seed_0(stem, qseed):
    """The questions part reads ``qseed`` (the bad link's default part does not): -5 once raised
    numpy's 'expected non-negative integer'."""
    at = run_page(stem, "en", query={"part": "questions", "qseed": qseed})
    assert errors(at) == []
    assert "qseed" in at.session_state["params_warned"]
    reference = run_page(stem, "en", query={"part": "questions"})
    assert [e.value for e in at.markdown] == [e.value for e in reference.markdown]  # seed 0's questions


@pytest.mark.parametrize("stem", TEACHING_STEMS)
def test_a_projector_link_with_a_bad_slide_and_seed_opens_a_slide_of_the_page(stem):
    at = run_page(stem, "en", query={"present": "1", "slide": "../" * 50, "qseed": "-1"})
    assert errors(at) == [] and at.session_state["teaching_present"]
    assert at.query_params["slide"] == slide_param(LESSONS[stem][0])  # the address names the slide shown: the first


@pytest.mark.parametrize("upload", list(UPLOADS))
@pytest.mark.parametrize("stem", STEMS)
def test_hostile_and_tiny_uploads_give_messages_not_tracebacks(stem, upload):
    name, data = UPLOADS[upload]
    at = run_page("home", "en")
    at.sidebar.get("file_uploader")[0].set_value((name, data, "text/plain"))
    at.run()
    if stem != "home":
        at.switch_page(f"app_pages/{stem}.py").run()
    assert errors(at) == []
    shown = [el.value for kind in ("markdown", "caption", "info", "warning", "error", "success", "title", "header",
                                   "subheader") for el in at.get(kind) if isinstance(getattr(el, "value", None), str)]
    shown += [str(o) for radio in at.sidebar.get("radio") for o in radio.options]
    assert not any("**bold**" in text or "](http" in text for text in shown)  # the name is text, not Markdown


def test_markdown_in_a_file_name_is_escaped_in_the_sidebar():
    name, data = UPLOADS["markdown_name"]
    at = run_page("corpus", "zh")
    at.sidebar.get("file_uploader")[0].set_value((name, data, "text/plain"))
    at.run()
    options = [str(o) for o in at.sidebar.radio(key=setting(at, "source")).options]
    assert any(md_text(name) in option for option in options)


@pytest.mark.parametrize("name", ["synthetic_x.txt", "**x**.txt", "english.txt", "[l](http://x) $y$ :red[z].md"])
def test_an_upload_s_name_shows_exactly_as_typed(name):
    """Wherever the corpus is named (sidebar, home page, teaching sheets and file names, which take
    ui/state.py ``corpus_name``), an upload named like a built-in sample or holding Markdown reads
    as typed: rendered by an independent CommonMark renderer, no escape or emphasis is left."""
    from markdown_it import MarkdownIt

    from ui.state import corpus_name

    at = run_page("home", "en")
    at.sidebar.get("file_uploader")[0].set_value((name, b"The cat sat. The dog ran. A bird sang. " * 20, "text/plain"))
    at.run()
    assert errors(at) == []

    def rendered(markdown: str) -> str:
        return html.unescape(re.sub(r"<[^>]+>", "", MarkdownIt("commonmark").render(markdown))).replace("\u200b", "").strip()

    assert rendered(at.info[0].value).startswith(f"Current corpus: {name} — ")
    assert f"My upload: {name}" in [rendered(str(o)) for o in at.sidebar.radio(key=setting(at, "source")).options]
    assert corpus_name(at.session_state["corpus"]) == name  # what sheets and exported files are named with


def test_two_students_uploading_the_same_text_each_see_their_own_file_name():
    """The server shares what it built from the same text under the same settings, but a corpus
    carries its name: Bo's home page once named Ada's file."""
    data = b"The cat sat. The dog ran. A bird sang. " * 20
    for name in ("ada-notes.txt", "bo-notes.txt"):  # one server (this process), two sessions
        at = run_page("home", "en")
        at.sidebar.get("file_uploader")[0].set_value((name, data, "text/plain"))
        at.run()
        assert at.session_state["corpus"].name == name and md_text(name) in at.info[0].value


def test_upload_bounds_cut_tokens_split_sentences_stop_reading_and_refuse_too_many_types():
    corpus = build_corpus(("x" * 10_000 + " ") * 300 + ". ok then.", "long", limits=APP_LIMITS)
    assert max(len(tok) for s in corpus.sentences for tok in s) == APP_LIMITS.max_token_chars
    assert max(len(s) for s in corpus.sentences) <= APP_LIMITS.max_sentence_tokens
    assert corpus.bounded["long_tokens"] == 300 and corpus.bounded["long_sentences"] == 1
    small = CorpusLimits(max_token_chars=40, max_sentence_tokens=5, max_tokens=50, max_types=1000)
    text = " ".join(f"w{i % 7} w{i % 5} w{i % 3}." for i in range(100))
    capped = build_corpus(text, "many", limits=small)
    longest = max(len(s) for s in build_corpus(text, "many").sentences)
    assert 50 <= capped.n_tokens < 50 + longest and capped.bounded["dropped_sentences"] > 0
    with pytest.raises(CorpusError) as refused:
        build_corpus(" ".join(f"t{i}." for i in range(3000)), "types", limits=CorpusLimits(max_types=1000))
    assert refused.value.key == "error.too_many_types"
    unbounded = build_corpus(text, "many")  # the library itself bounds nothing unless asked
    assert unbounded.n_tokens > 300 and unbounded.bounded == {}


@pytest.mark.parametrize("raw, default, kwargs, expected", [
    ("7", 400, {"choices": range(200, 20001, 200)}, None),
    ("400", 400, {"choices": range(200, 20001, 200)}, 400),
    ("abc", 3, {"lo": 1, "hi": 6}, None),
    ("9", 3, {"lo": 1, "hi": 6}, None),
    ("5", 3, {"lo": 1, "hi": 6}, 5),
    ("nan", 0.5, {"lo": 0.0, "hi": 2.0}, None),
    ("inf", 0.5, {}, None),
    ("1.5", 0.5, {"lo": 0.0, "hi": 2.0}, 1.5),
    ("maybe", False, {}, None),
    ("1", False, {}, True),
    ("x", "tanh", {"choices": ["tanh", "relu"]}, None),
    ("relu", "tanh", {"choices": ["tanh", "relu"]}, "relu"),
    ("9" * 400, 3, {"lo": 1, "hi": 6}, None),
])
def test_link_values_are_checked_against_the_control(raw, default, kwargs, expected):
    assert parse_param(raw, default, **kwargs) == expected


@pytest.mark.parametrize("name", ["**b** _i_ [l](http://x) <img src=x onerror=alert(1)> `c`", "# Title\n- item",
                                  "a\\*b\\* &amp; &lt;b&gt;", "1. one | two | ~~x~~ ![i](http://x/i.png)"])
def test_md_text_renders_as_the_same_plain_text(name):
    """An independent CommonMark renderer shows exactly the original characters: no tag, link or emphasis."""
    import html

    from markdown_it import MarkdownIt

    rendered = MarkdownIt("commonmark").render(md_text(name)).strip()
    assert rendered.startswith("<p>") and rendered.endswith("</p>") and rendered.count("<") == 2
    assert html.unescape(rendered[3:-4]).replace("\u200b", "") == name.replace("\n", " ")


def test_md_text_breaks_latex_emoji_and_colour_directives():
    escaped = md_text("$x^2$ :smile: :red[y]")
    assert re.search(r"(?<!\\)\$", escaped) is None and ":smile:" not in escaped and ":red[" not in escaped


@pytest.mark.parametrize("stem", ["ngram", "chain_rule", "corpus"])
def test_a_tiny_memory_budget_gives_messages_and_is_never_exceeded(stem, monkeypatch):
    from lmcore.i18n import catalogue
    from server.stores import data_store, model_store

    monkeypatch.setenv("LMLAB_MEMORY_MB", "3")
    data_store.clear()
    model_store.clear()
    try:
        at = run_page(stem, "en")
        assert errors(at) == []
        store = data_store()
        assert store.nbytes <= store.budget
        if stem != "corpus":  # the counts do not fit: the page says so (a lower order, or too large)
            said = [el.value for el in list(at.error) + list(at.info)]
            prefixes = [catalogue()[k][0].split("{")[0] for k in ("memory.too_large", "memory.lower_order")]
            assert any(text.startswith(p) for text in said for p in prefixes), said
    finally:
        data_store.clear()
        model_store.clear()
