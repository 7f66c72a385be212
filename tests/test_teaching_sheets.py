"""Exercise sheets: both languages, the same seed gives the same sheet, the tables the questions use
are printed, answers only in the key, corpus text escaped, the PDF is a real PDF with the text."""
from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from lmcore.ngram import MAX_ORDER, count_ngrams
from lmcore.samples import default_settings, load_sample
from lmcore.teaching import LESSON_OF, LessonInputs, build_sheet, key_markdown, sheet_html, sheet_markdown
from lmcore.teaching.export import chromium_path
from lmcore.teaching.question import CHOICE
from lmcore.teaching.sheet import COURSE_MAX_QUESTIONS, md_escape, sheet_pdf

HAN = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture(scope="module")
def inputs():
    c = load_sample("english", default_settings("english"), 0)
    counts = count_ngrams(c.mapped("train"), MAX_ORDER)
    return LessonInputs(counts, c.mapped("test"), "English sample", order=3)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_same_seed_same_sheet_other_seed_other_sheet(inputs, lang):
    a, b = build_sheet(inputs, 42, 8), build_sheet(inputs, 42, 8)
    assert sheet_markdown(a, lang) == sheet_markdown(b, lang) and key_markdown(a, lang) == key_markdown(b, lang)
    assert sheet_html(a, lang) == sheet_html(b, lang)
    assert sheet_markdown(build_sheet(inputs, 43, 8), lang) != sheet_markdown(a, lang)
    assert ("seed 42" if lang == "en" else "种子 42") in sheet_markdown(a, lang)


@pytest.mark.parametrize("n", [5, 8, 10])
def test_sheet_has_n_questions_from_every_topic(inputs, n):
    sheet = build_sheet(inputs, 7, n)
    assert len(sheet.questions) == n
    assert {q.topic for q in sheet.questions} == {"ngram", "perplexity", "gradients", "decoding"}
    assert len({q.uid for q in sheet.questions}) == n
    md = sheet_markdown(sheet, "en")
    assert len(re.findall(r"^## \d+\. ", md, flags=re.M)) == n


def test_both_languages_render_and_differ_only_in_words(inputs):
    sheet = build_sheet(inputs, 3, 10)
    en, zh = sheet_markdown(sheet, "en"), sheet_markdown(sheet, "zh")
    assert not HAN.search(en) and len(HAN.findall(zh)) > 200
    numbers = lambda text: sorted(re.findall(r"\d+\.\d+", text))  # noqa: E731
    assert numbers(en) == numbers(zh)  # same tables, same numbers
    assert "练习题" in zh and "exercise sheet" in en


def test_tables_are_printed_and_answers_only_in_the_key(inputs):
    sheet = build_sheet(inputs, 11, 10)
    md, key = sheet_markdown(sheet, "en"), key_markdown(sheet, "en")
    for q in sheet.questions:
        if q.table is not None:
            _, rows = q.table.render("en")
            for row in rows:
                assert "| " + " | ".join(md_escape(c) for c in row) + " |" in md
        assert md_escape(q.reveal.render("en")) not in md and md_escape(q.reveal.render("en")) in key
        if q.kind != CHOICE:
            assert md_escape(q.answer_text("en")) in key
    assert len(re.findall(r"^\d+\. \*\*", key, flags=re.M)) == len(sheet.questions)


def test_corpus_text_cannot_add_markup():
    assert md_escape("<b>*x*</b> [a](b) $y$ | #") == r"\<b\>\*x\*\</b\> \[a\](b) \$y\$ \| \#"
    tricky = ["<script>alert(1)</script>", "*bold*", "a|b", "$x$"] * 40
    train = [tricky[i:i + 6] + ["ok", "fine"] for i in range(0, len(tricky) - 6)]
    counts = count_ngrams(train, MAX_ORDER)
    sheet = build_sheet(LessonInputs(counts, train[:20], "<i>up</i>"), 0, 10)
    html = sheet_html(sheet, "en") + sheet_html(sheet, "en", key=True)
    assert "<script>" not in html and "<i>up</i>" not in html and "&lt;i&gt;up&lt;/i&gt;" in html
    md = sheet_markdown(sheet, "en")
    assert "<script>" not in md and "\\<script\\>" in md or "script" not in md


@pytest.mark.skipif(chromium_path() is None, reason="PDF sheets need Chromium")
@pytest.mark.parametrize("lang, title", [("en", "exercise sheet"), ("zh", "练习题")])
def test_pdf_sheet_is_a_pdf_with_the_text(inputs, lang, title):
    sheet = build_sheet(inputs, 5, 6)
    pdf = sheet_pdf(sheet, lang)
    assert pdf.startswith(b"%PDF-") and pdf.rstrip().endswith(b"%%EOF")
    key = sheet_pdf(sheet, lang, key=True)
    assert key.startswith(b"%PDF-") and key != pdf
    if shutil.which("pdftotext"):
        text = subprocess.run(["pdftotext", "-", "-"], input=pdf, capture_output=True, check=True).stdout.decode()
        assert title in text
        assert sheet.questions[0].table is None or sheet.questions[0].table.render(lang)[1][0][-1] in text


@pytest.fixture(scope="module")
def corpus_inputs():
    c = load_sample("english", default_settings("english"), 0)
    counts = count_ngrams(c.mapped("train"), MAX_ORDER)
    return LessonInputs(counts, c.mapped("test"), "English sample", order=3, source_corpus=c)


@pytest.mark.parametrize("page", ["corpus", "chain_rule", "ngram", "gradients", "decoding"])
def test_a_page_sheet_asks_about_that_page_only(corpus_inputs, page):
    """A page's sheet: its own topics (topped up from their next seeds), the same for the same seed,
    in both languages."""
    topics = LESSON_OF[page].topics
    sheet = build_sheet(corpus_inputs, 3, 6, topics=topics)
    assert len(sheet.questions) == 6 and {q.topic for q in sheet.questions} <= set(topics)
    assert len({(q.prompt.render("en"), str(q.table and q.table.render("en"))) for q in sheet.questions}) == 6
    for lang in ("en", "zh"):
        assert sheet_markdown(sheet, lang) == sheet_markdown(build_sheet(corpus_inputs, 3, 6, topics=topics), lang)


def test_the_course_sheet_runs_through_the_course_in_order(corpus_inputs):
    from ui.teaching_share import course_topics

    topics = course_topics()
    assert topics[:4] == ("corpus", "perplexity", "ngram", "rnn_bptt")  # the lessons' order, each topic once
    sheet = build_sheet(corpus_inputs, 9, COURSE_MAX_QUESTIONS, topics=topics, most=COURSE_MAX_QUESTIONS)
    asked = [q.topic for q in sheet.questions]
    assert len(asked) == COURSE_MAX_QUESTIONS
    assert {"corpus", "perplexity", "ngram", "gradients", "decoding"} <= set(asked)
    assert asked[:2] == ["corpus", "perplexity"]
    en, zh = sheet_markdown(sheet, "en"), sheet_markdown(sheet, "zh")
    assert len(re.findall(r"^## \d+\. ", en, flags=re.M)) == COURSE_MAX_QUESTIONS and HAN.search(zh)
    again = build_sheet(corpus_inputs, 9, COURSE_MAX_QUESTIONS, topics=topics, most=COURSE_MAX_QUESTIONS)
    assert key_markdown(again, "zh") == key_markdown(sheet, "zh")
