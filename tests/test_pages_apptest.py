"""Every registered page runs in AppTest, in both languages, inside the whole app (shared sidebar)."""
import pytest

from lmcore.i18n import t
from tests.apptest_helpers import errors, run_page, setting, text_tables
from ui.navigation import PAGES


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("stem", [stem for stem, _, _ in PAGES])
def test_page_runs_with_the_shared_sidebar(stem, lang):
    at = run_page(stem, lang)
    assert errors(at) == []
    assert at.sidebar.selectbox(key="lang").value == lang
    assert at.sidebar.radio(key=setting(at, "source")).value == "english"
    titles = [title.value for title in at.title]
    assert t(f"nav.{stem}", lang) in titles or (stem == "home" and t("app.title", lang) in titles)


def test_switching_pages_keeps_the_sidebar_choices():
    at = run_page("corpus", "zh")
    at.sidebar.radio(key=setting(at, "source")).set_value("synthetic").run()
    at.switch_page("app_pages/home.py").run()
    assert at.sidebar.radio(key=setting(at, "source")).value == "synthetic"
    assert at.session_state["corpus"].true_entropy is not None
    assert errors(at) == []


def test_corpus_page_in_chinese_shows_chinese_sample_with_jieba():
    at = run_page("corpus", "zh", query={"corpus": "chinese"})
    assert at.sidebar.selectbox(key=setting(at, "tokenizer")).value == "jieba"
    assert at.query_params["corpus"] == ["chinese"] or at.query_params["corpus"] == "chinese"
    assert at.metric[0].label == t("corpus.metric.characters", "zh")
    assert errors(at) == []


def _upload(at, name: str, data: bytes):
    at.sidebar.get("file_uploader")[0].set_value((name, data, "text/plain"))
    return at.run()


def test_uploaded_gbk_text_becomes_the_corpus_and_survives_page_changes():
    text = "我们今天去学校上课。老师说，明天会下雨，大家要带伞。小明和小红在图书馆看书。\n" * 5
    at = _upload(run_page("corpus", "en"), "gbk.txt", text.encode("gbk"))
    assert errors(at) == [] and not at.error
    corpus = at.session_state["corpus"]
    assert corpus.name == "gbk.txt" and corpus.language == "zh" and corpus.encoding == "gb18030"
    assert at.sidebar.selectbox(key=setting(at, "tokenizer")).value == "jieba"
    at.switch_page("app_pages/home.py").run()
    assert at.session_state["corpus"].name == "gbk.txt"


def test_binary_upload_shows_the_clear_error_and_keeps_working():
    png = bytes.fromhex("89504e470d0a1a0a0000000d49484452") + bytes(range(256)) * 8
    at = _upload(run_page("corpus", "zh"), "picture.txt", png)
    assert errors(at) == []
    assert t("error.binary", "zh") in at.error[0].value
    assert at.session_state["corpus"].name == "english"


def test_language_defaults_to_the_browser_locale():
    from streamlit.testing.v1 import AppTest

    from tests.apptest_helpers import APP

    at = AppTest.from_file(APP, default_timeout=60)
    at.context = {"locale": "zh-CN"}
    at.run()
    assert at.sidebar.selectbox(key="lang").value == "zh"
    assert at.title[0].value == t("app.title", "zh")


def test_settings_are_shared_through_the_url():
    at = run_page("corpus", "en", query={"corpus": "synthetic", "sents": "400", "part": "tokens", "top": "50"})
    assert at.session_state["corpus"].true_entropy is not None
    assert len(at.session_state["corpus"].sentences) == 400
    assert at.select_slider(key="corpus_top").value == 50
    assert errors(at) == []


@pytest.mark.parametrize("stem", [stem for stem, _, _ in PAGES])
def test_page_survives_a_two_word_corpus(stem):
    """The smallest corpus the pipeline accepts (2 sentences of one word): a clear page, no traceback."""
    at = run_page("home", "en")
    _upload(at, "tiny.txt", b"Hello.\nHello.\n")
    assert at.session_state["corpus"].name == "tiny.txt"
    if stem != "home":
        at.switch_page(f"app_pages/{stem}.py").run()
    assert errors(at) == []


@pytest.mark.parametrize("stem", [stem for stem, _, _ in PAGES if stem not in ("home", "corpus")])
def test_page_runs_on_the_chinese_and_synthetic_samples(stem):
    for corpus in ("chinese", "synthetic"):
        at = run_page(stem, "zh", query={"corpus": corpus})
        assert errors(at) == [], corpus


def test_home_names_the_built_in_corpus_in_the_chosen_language():
    at = run_page("home", "zh", query={"corpus": "synthetic"})
    assert t("sidebar.sample.synthetic", "zh") in at.info[0].value


def test_corpus_preview_shows_the_tokenised_sentences_as_typed():
    text = "The <i>cat</i> & **dog** sat on $x$ at 5 < 6.\nA <script>bird</script> sang [here](http://a.b).\n" * 20
    at = _upload(run_page("corpus", "en"), "marks.txt", text.encode())
    assert errors(at) == [] and not at.error
    sentences = at.session_state["corpus"].mapped("train")[:30]
    preview = text_tables(at)[0]
    assert list(preview.iloc[:, 0]) == [" · ".join(s) for s in sentences]
    assert list(preview.iloc[:, 1]) == [len(s) for s in sentences]
    assert any("<" in s or "&" in s or "*" in s for s in preview.iloc[:, 0])  # markup came back as text
