"""The catalogue: every key in both languages, same format fields, page titles present."""
import re
import string

import pytest

from lmcore.i18n import catalogue, language_from_locale, t

FIELDS = string.Formatter()


def _fields(text: str) -> set[str]:
    return {name for _, name, _, _ in FIELDS.parse(text) if name}


@pytest.mark.parametrize("key", sorted(catalogue()))
def test_every_string_has_both_languages_with_the_same_fields(key):
    en, zh = catalogue()[key]
    assert en.strip() and zh.strip(), key
    assert _fields(en) == _fields(zh), key


# Strings whose Chinese is deliberately the English text (each reviewed): nothing else may be.
LEFT_IN_ENGLISH_ON_PURPOSE = {
    "gradients.fig.jacobian": "a formula (diag is notation)",
    "lstm.train.dropout": "the name Chinese courses use too",
    "teaching.r.from_probs": "a formula; its one English word ('with') is a comma in Chinese",
}


def test_chinese_strings_are_chinese_where_they_are_words():
    """A string whose English has words (4+ letters; format fields and acronyms such as LSTM aside)
    has Chinese characters in its translation, unless it is listed above on purpose."""
    han = re.compile(r"[\u4e00-\u9fff]")

    def has_words(text: str) -> bool:
        return any(not w.isupper() for w in re.findall(r"[A-Za-z]{4,}", re.sub(r"\{[^}]*\}", "", text)))

    untranslated = {k for k, (en, zh) in catalogue().items() if has_words(en) and not han.search(zh)}
    assert untranslated == set(LEFT_IN_ENGLISH_ON_PURPOSE)


def test_every_page_has_a_title_and_a_url_unlike_its_file():
    from ui.navigation import PAGES

    for stem, url_path, section in PAGES:
        assert t(f"nav.{stem}", "en") != t(f"nav.{stem}", "zh")
        assert t(f"nav.section.{section}", "zh")
        assert url_path != stem and url_path.replace("-", "_") != stem


@pytest.mark.parametrize("locale, lang", [("zh-CN", "zh"), ("zh-TW", "zh"), ("en-US", "en"), (None, "en"), ("fr", "en")])
def test_language_from_browser_locale(locale, lang):
    assert language_from_locale(locale) == lang


def test_t_formats_fields():
    assert "3" in t("error.too_few_sentences", "en", n=3) and "3" in t("error.too_few_sentences", "zh", n=3)
