"""Teaching mode in AppTest: the pages run in both views and languages, no answer reaches the page
before Reveal (every element is searched, Plotly specs included, backslash escapes removed), the reveal shows it
and the class score counts it, and projector view shows one slide at a time."""
from __future__ import annotations

import pytest
from google.protobuf.json_format import MessageToJson

from lmcore.teaching import COURSE, LESSON_OF, LESSONS, LessonInputs, topic_questions
from lmcore.teaching.course import slide_param
from lmcore.teaching.question import CHOICE
from tests.apptest_helpers import errors, run_page, show_part


def page_text(at, charts: bool = True) -> str:
    """Everything the script sent for the main area and sidebar, as JSON text (unicode kept),
    without backslashes, so that an escaped answer (P\\_add) is found as well."""
    out: list[str] = []

    def walk(node) -> None:
        proto = getattr(node, "proto", None)
        if proto is not None and not hasattr(node, "children") and (charts or node.type != "plotly_chart"):
            out.append(MessageToJson(proto, ensure_ascii=False))
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at._tree)
    return "\n".join(out).replace("\\", "")  # backslashes (JSON and Markdown escapes) removed


def live_questions(at, page: str):
    """The questions the page drew (same corpus, settings and seed), to know what must stay hidden."""
    from lmcore.ngram import MAX_ORDER, count_ngrams

    corpus = at.session_state["corpus"]
    counts = count_ngrams(corpus.mapped("train"), MAX_ORDER)
    held_out = corpus.mapped("test") or corpus.mapped("valid")
    if page == "ngram":
        inputs = LessonInputs(counts, held_out, "", order=3, delta=1.0, discount=0.75)
        return topic_questions("ngram", inputs, 0) + topic_questions("perplexity", inputs, 0)
    return topic_questions("gradients", LessonInputs(counts, held_out, "", hidden=32, input_scale=1.0), 0)


def answer(at, q, response) -> None:
    """Type or pick ``response`` in the question's form and press Reveal."""
    if q.kind == CHOICE:
        at.radio(key=f"lmlab-in-{q.uid}").set_value(response)
    else:
        at.text_input(key=f"lmlab-in-{q.uid}").input(response)
    next(b for b in at.button if b.proto.form_id == f"lmlab-quiz-{q.uid}").click()
    at.run()


def secrets(q, lang: str) -> list[str]:
    """Texts that only the reveal may show: the working (with the numbers) and, for numeric
    questions, the answer itself (for a choice, the right label is one of the offered choices)."""
    out = [q.reveal.render(lang)]
    if q.kind != CHOICE:
        out.append(q.answer_text(lang))
    return out


def assert_hidden(at, q, lang: str) -> None:
    """The working is nowhere in what the page received (charts included); the bare number is in
    no text element (a chart's thousands of data values may contain any 4-digit string by chance)."""
    full, text = page_text(at), page_text(at, charts=False)
    reveal, *number = secrets(q, lang)
    assert reveal not in full, (q.qid, reveal)
    for secret in number:
        assert secret not in text, (q.qid, secret)


# The gradients page trains two small models on its first run (minutes on a busy machine): it gets
# one AppTest, a generous first timeout, and one test that checks both views.
FIRST_RUN = 900


@pytest.mark.parametrize("page, lang", [("ngram", "en"), ("ngram", "zh"), ("gradients", "en")])
def test_answers_are_absent_before_reveal_and_present_after(page, lang):
    at = run_page(page, lang, timeout=FIRST_RUN, query={"part": "questions"})
    check_reveal(at, page, lang)
    if page == "gradients":  # the same session, now in projector view
        at.toggle(key="teaching_present").set_value(True)
        at.run(timeout=FIRST_RUN)
        walk_lesson(at, page, lang)


def check_reveal(at, page: str, lang: str) -> None:
    assert not errors(at)
    questions = live_questions(at, page)
    assert len(questions) >= 3
    before = page_text(at)
    for q in questions:
        assert q.prompt.render(lang).split("“")[0][:30] in before  # the question is there...
        assert_hidden(at, q, lang)  # ...its answer is not
    q = questions[0]
    answer(at, q, int(q.answer) if q.kind == CHOICE else repr(q.answer))
    after = page_text(at)
    assert not errors(at)
    assert all(s in after for s in secrets(q, lang))
    assert at.session_state["teaching_score"] == {"answered": 1, "right": 1}
    for other in questions[1:]:
        assert_hidden(at, other, lang)


def test_a_wrong_answer_is_scored_and_the_chart_that_explains_it_is_shown():
    at = run_page("ngram", "en", timeout=FIRST_RUN, query={"part": "questions"})
    q = next(q for q in live_questions(at, "ngram") if q.qid == "ngram.unseen")
    charts_before = len(at.get("plotly_chart"))
    answer(at, q, (int(q.answer) + 1) % len(q.choices))
    assert at.session_state["teaching_score"] == {"answered": 1, "right": 0}
    assert any("Not quite" in e.value for e in at.error)
    assert len(at.get("plotly_chart")) == charts_before + 1
    assert q.reveal.render("en") in page_text(at)


def quiz_forms(at) -> int:
    return len([b for b in at.button if b.proto.form_id.startswith("lmlab-quiz-")])


@pytest.mark.parametrize("page", ["ngram", "gradients"])
def test_the_questions_are_the_last_part_and_run_only_when_it_is_open(page):
    """Normal view: the questions are a part of their own (ui/sections.py), so a control moved on
    another part does not redraw them; opening that part shows them for the page's settings."""
    at = run_page(page, "en", timeout=FIRST_RUN)
    assert not errors(at) and quiz_forms(at) == 0
    assert at.segmented_control(key=f"part_{page}").options[-1] == "Predict, then reveal"
    show_part(at, page, "questions")
    assert not errors(at)
    assert quiz_forms(at) == len(live_questions(at, page)) >= 3
    assert at.query_params["part"] == "questions"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_projector_view_walks_the_lesson_one_slide_at_a_time(lang):
    walk_lesson(run_page("ngram", lang, timeout=FIRST_RUN, query={"present": "1"}), "ngram", lang)


def walk_lesson(at, page: str, lang: str) -> None:
    headers = {"ngram": ("Next words after h", "Held-out perplexity", "h 之后的下一个词", "留出集困惑度"),
               "gradients": ("Gradient norm vs distance", "Gradient clipping", "梯度范数", "梯度裁剪")}[page]
    for i, slide in enumerate(LESSONS[page]):
        kind, _, name = slide.partition(":")
        assert not errors(at), slide
        assert str(at.query_params["slide"]).strip("[]'") == (name if kind == "sec" else "q-" + name)
        forms = len([b for b in at.button if b.proto.form_id.startswith("lmlab-quiz-")])
        revealed = kind == "q" and any(q.qid == name and q.uid in at.session_state["teaching_answers"]
                                       for q in live_questions(at, page)) if "teaching_answers" in at.session_state else False
        assert forms == (kind == "q" and not revealed), slide
        assert not any(h.value == ("Predict, then reveal" if lang == "en" else "先预测，再揭晓") for h in at.header)
        text = page_text(at)
        assert sum(h in text for h in headers) <= 1, slide  # never two sections on one slide
        if i < len(LESSONS[page]) - 1:
            at.button(key="lmlab-next").click()
            at.run(timeout=FIRST_RUN)
    assert at.button(key="lmlab-next").label == ("Next lesson ▶" if lang == "en" else "下一课 ▶")  # the course goes on
    assert not at.button(key="lmlab-next").disabled
    at.button(key="lmlab-prev").click()
    at.run(timeout=FIRST_RUN)
    kind, _, name = LESSONS[page][-2].partition(":")
    assert str(at.query_params["slide"]).strip("[]'") == (name if kind == "sec" else "q-" + name)


def test_a_chart_export_draws_its_buttons_only_while_open():
    """The n-gram page's charts each have an Export popover; its PNG and SVG buttons (for a file named
    after page, chart, corpus and settings) are drawn only once it is opened: a control's move redraws
    the popover's label alone."""
    def exports(at) -> list[str]:
        return sorted(b.proto.id.split("-lmlab-", 1)[1] for b in at.get("download_button") if "-lmlab-" in b.proto.id
                      and "lmlab-csv" not in b.proto.id)

    at = run_page("ngram", "en", query={"n": "3"})
    assert errors(at) == [] and len(at.get("plotly_chart")) == 1 and exports(at) == []
    at.session_state["lmlab-export-ngram-next-words"] = True
    at.run()
    assert errors(at) == [] and len(at.get("plotly_chart")) == 1
    assert [name.split("_")[:2] for name in exports(at)] == [["png-ngram", "next-words"], ["svg-ngram", "next-words"]]
    assert all("n3" in name and name.endswith("1920x1080.{ext}") for name in exports(at))


def slide_shown(at) -> str:
    return str(at.query_params["slide"]).strip("[]'")


def test_the_address_is_the_only_record_of_the_slide():
    """Previous/Next write the address; an address changed from outside (Back, Forward, a pasted
    link) shows its slide although the session saw another one last; a bad slide or projector value
    falls back with a notice, never a traceback."""
    at = run_page("ngram", "en", query={"present": "1"})
    first, second, third = (slide_param(s) for s in LESSONS["ngram"][:3])
    assert slide_shown(at) == first
    at.button(key="lmlab-next").click().run()
    at.button(key="lmlab-next").click().run()
    assert slide_shown(at) == third and not errors(at)
    at.query_params["slide"] = first  # Back, twice
    at.run()
    assert slide_shown(at) == first and at.button(key="lmlab-prev").label == "◀ Previous lesson"
    at.button(key="lmlab-next").click().run()
    assert slide_shown(at) == second
    for bad in ("999", "<script>", ""):
        at.query_params["slide"] = bad
        at.run()
        assert not errors(at) and slide_shown(at) == first
    at = run_page("ngram", "en", query={"present": "abc"})
    assert not errors(at) and "slide" not in at.query_params and len(at.segmented_control(key="part_ngram").options) == 5
    assert any("present" in toast.value for toast in at.toast)


def test_next_at_a_lesson_end_opens_the_next_lesson_and_previous_comes_back():
    """The course runs the decks back to back in the notes' order; its ends have nowhere to go."""
    pages = [lesson.page for lesson in COURSE]
    assert pages == ["corpus", "chain_rule", "ngram", "rnn_bptt", "gradients", "lstm", "seq2seq", "decoding"]
    at = run_page("corpus", "en", query={"present": "1", "slide": slide_param(LESSONS["corpus"][-1])})
    assert at.button(key="lmlab-prev").disabled is False
    at.button(key="lmlab-next").click().run()
    assert not errors(at) and slide_shown(at) == slide_param(LESSONS["chain_rule"][0])
    assert at.query_params["present"] == "1" and "top" not in at.query_params  # the corpus page's settings stay behind
    at.button(key="lmlab-prev").click().run()
    assert not errors(at) and slide_shown(at) == slide_param(LESSONS["corpus"][-1])
    at = run_page("corpus", "en", query={"present": "1"})
    assert at.button(key="lmlab-prev").disabled  # the course's first slide
    at = run_page("decoding", "en", query={"present": "1", "slide": slide_param(LESSON_OF["decoding"].slides[-1])})
    assert at.button(key="lmlab-next").disabled  # and its last


def test_leaving_projector_view_opens_the_tab_of_the_slide_shown():
    at = run_page("ngram", "en", query={"present": "1", "slide": "continuation"})
    at.toggle(key="teaching_present").set_value(False).run()
    assert not errors(at) and at.query_params["part"] == "continuation" and "slide" not in at.query_params
    at = run_page("ngram", "en", query={"present": "1", "slide": "q-ngram.unseen"})
    at.toggle(key="teaching_present").set_value(False).run()
    assert at.query_params["part"] == "questions"
