"""Exercise sheets: 5–10 questions on the current corpus, as Markdown and as HTML/PDF, in English
or 中文, with a separate answer key. The same inputs and seed give the same sheet, byte for byte.

Corpus text (tokens, sentences) is escaped: Markdown punctuation is backslash-escaped, HTML is
entity-escaped, so an uploaded file can never add markup to a sheet.
"""
from __future__ import annotations

import html
import re
from dataclasses import dataclass

from lmcore.i18n import t
from lmcore.teaching.lesson import TOPICS, LessonInputs, topic_questions
from lmcore.teaching.question import CHOICE, Question, fmt

MIN_QUESTIONS, MAX_QUESTIONS = 5, 10
COURSE_MAX_QUESTIONS = 24  # a sheet for the whole course: about three questions per lesson
LETTERS = "abcdefgh"
_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>#|~$])")


@dataclass(frozen=True)
class Sheet:
    """The questions of one sheet and what they were drawn from."""

    questions: tuple[Question, ...]
    seed: int
    corpus: str
    settings: tuple[tuple[str, object], ...]


def _asked(question: Question) -> str:
    """What a student reads of a question: its prompt and table (two seeds may ask the same)."""
    table = question.table.render("en") if question.table is not None else None
    return f"{question.prompt.render('en')}|{table}"


def build_sheet(inputs: LessonInputs, seed: int, n: int = 8, topics: tuple[str, ...] = TOPICS,
                most: int = MAX_QUESTIONS) -> Sheet:
    """n questions (5..``most``) taken in turn from each topic's questions for this seed. Topics that
    run short are topped up from their own questions for the next seeds (a question whose prompt
    and table are already on the sheet is not repeated), then, on a corpus too small for them, from the synthetic
    topics (gradients, decoding) that need no corpus."""
    n = max(MIN_QUESTIONS, min(most, int(n)))
    pools = {topic: topic_questions(topic, inputs, seed) for topic in topics}
    seen = {_asked(q) for pool in pools.values() for q in pool}

    def top_up(topic: str, extra: int) -> None:
        for q in topic_questions(topic, inputs, seed + 1000 * extra):
            if _asked(q) not in seen:
                seen.add(_asked(q))
                pools.setdefault(topic, []).append(q)

    for extra in range(1, 20):
        if sum(len(p) for p in pools.values()) >= n:
            break
        for topic in topics if extra < 4 else ("gradients", "decoding"):
            top_up(topic, extra)
    picked: list[Question] = []
    while len(picked) < n and any(pools.values()):
        for topic in list(pools):
            if pools[topic] and len(picked) < n:
                picked.append(pools[topic].pop(0))
    return Sheet(tuple(picked), seed, inputs.corpus, tuple(inputs.settings().items()))


def md_escape(text: str) -> str:
    """Text shown literally in Markdown (and in Streamlit's markdown, where $ starts LaTeX)."""
    return _MD_SPECIAL.sub(r"\\\1", text).replace("\n", " ")


def _settings_text(sheet: Sheet) -> str:
    return ", ".join(f"{k} = {fmt(v)}" for k, v in sheet.settings)


def _header(sheet: Sheet, lang: str, key: bool) -> tuple[str, str]:
    title = t("teaching.sheet.key_title" if key else "teaching.sheet.title", lang)
    sub = t("teaching.sheet.subtitle", lang, corpus=sheet.corpus, settings=_settings_text(sheet), seed=sheet.seed)
    return title, sub


def md_table(question: Question, lang: str) -> list[str]:
    """The question's table as Markdown lines (every cell escaped), then a blank line; none without a table."""
    if question.table is None:
        return []
    header, rows = question.table.render(lang)
    lines = ["| " + " | ".join(md_escape(h) for h in header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(md_escape(c) for c in row) + " |" for row in rows]
    return lines + [""]


def answer_line(question: Question, lang: str) -> str:
    """How to answer: the choices, or a blank with the tolerance."""
    if question.kind == CHOICE:
        return "   ".join(f"({LETTERS[i]}) {c.render(lang)}" for i, c in enumerate(question.choices))
    return t("teaching.sheet.blank", lang, tol=question.tolerance.describe(lang))


def key_answer(question: Question, lang: str) -> str:
    """The answer as the key prints it: "(b) P_KN" or "0.002394"."""
    if question.kind == CHOICE:
        return f"({LETTERS[int(question.answer)]}) {question.answer_text(lang)}"
    return question.answer_text(lang)


def sheet_markdown(sheet: Sheet, lang: str = "en") -> str:
    """The exercise sheet (no answers) as Markdown."""
    title, sub = _header(sheet, lang, key=False)
    lines = [f"# {title}", "", md_escape(sub), "", md_escape(t("teaching.sheet.instructions", lang)), ""]
    for i, q in enumerate(sheet.questions, 1):
        lines += [f"## {i}. {md_escape(t(f'teaching.topic.{q.topic}', lang))}", "", md_escape(q.prompt.render(lang)), ""]
        lines += md_table(q, lang)
        lines += [md_escape(answer_line(q, lang)), ""]
    return "\n".join(lines).rstrip() + "\n"


def key_markdown(sheet: Sheet, lang: str = "en") -> str:
    """The answer key of the sheet as Markdown: answer, working, and the figure that explains it."""
    title, sub = _header(sheet, lang, key=True)
    lines = [f"# {title}", "", md_escape(sub), ""]
    for i, q in enumerate(sheet.questions, 1):
        lines += [f"{i}. **{md_escape(key_answer(q, lang))}** — {md_escape(q.reveal.render(lang))} "
                  f"({md_escape(t('teaching.sheet.see', lang, figure=t(f'teaching.explain.{q.explain}', lang)))})"]
    return "\n".join(lines) + "\n"


CSS = """
@page { size: A4; margin: 14mm; }
body { font-family: "Noto Sans", "Noto Sans CJK SC", "Noto Sans CJK", "DejaVu Sans", sans-serif; font-size: 12pt;
       margin: 0; color: #111; }
h1 { font-size: 20pt; margin: 0 0 4pt 0; } h2 { font-size: 13pt; margin: 16pt 0 4pt 0; }
.sub { color: #444; margin-bottom: 8pt; } table { border-collapse: collapse; margin: 6pt 0; }
td, th { border: 1px solid #999; padding: 3pt 7pt; text-align: left; } th { background: #eee; }
.answer { margin-top: 6pt; } .q { break-inside: avoid; } li { margin-bottom: 6pt; }
"""


def _html_table(question: Question, lang: str) -> str:
    if question.table is None:
        return ""
    header, rows = question.table.render(lang)
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def sheet_html(sheet: Sheet, lang: str = "en", key: bool = False) -> str:
    """The sheet (or its answer key) as a standalone HTML page, ready to print to PDF."""
    title, sub = _header(sheet, lang, key)
    parts = [f"<!DOCTYPE html><html lang=\"{'zh-CN' if lang == 'zh' else 'en'}\"><head><meta charset=\"utf-8\">"
             f"<title>{html.escape(title)}</title><style>{CSS}</style></head><body>",
             f"<h1>{html.escape(title)}</h1><div class=\"sub\">{html.escape(sub)}</div>"]
    if key:
        items = "".join(f"<li><b>{html.escape(key_answer(q, lang))}</b> — {html.escape(q.reveal.render(lang))} "
                        f"({html.escape(t('teaching.sheet.see', lang, figure=t(f'teaching.explain.{q.explain}', lang)))})</li>"
                        for q in sheet.questions)
        parts.append(f"<ol>{items}</ol>")
    else:
        parts.append(f"<p>{html.escape(t('teaching.sheet.instructions', lang))}</p>")
        for i, q in enumerate(sheet.questions, 1):
            parts.append(f"<div class=\"q\"><h2>{i}. {html.escape(t(f'teaching.topic.{q.topic}', lang))}</h2>"
                         f"<p>{html.escape(q.prompt.render(lang))}</p>{_html_table(q, lang)}"
                         f"<div class=\"answer\">{html.escape(answer_line(q, lang))}</div></div>")
    parts.append("</body></html>")
    return "".join(parts)


def sheet_pdf(sheet: Sheet, lang: str = "en", key: bool = False) -> bytes:
    """The sheet (or its key) as PDF, printed by headless Chromium (CJK via Debian's Noto fonts)."""
    from lmcore.teaching.export import html_to_pdf

    return html_to_pdf(sheet_html(sheet, lang, key))
