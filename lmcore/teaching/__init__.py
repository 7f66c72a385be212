"""Teaching mode, without Streamlit: predict-then-reveal questions drawn from the live corpus and
settings (answers computed by lmcore itself), lesson plans in the order of the course notes,
exercise sheets (Markdown / PDF, English / 中文, seeded), projector styling and static exports.

>>> from lmcore.teaching import LessonInputs, build_sheet, sheet_markdown
>>> sheet = build_sheet(LessonInputs(counts, held_out, corpus="english"), seed=7, n=8)
>>> print(sheet_markdown(sheet, "zh"))
"""
from lmcore.teaching.course import COURSE, LESSON_OF, LESSONS, PAGE_TOPICS, PARTS, PageLesson
from lmcore.teaching.lesson import TOPICS, LessonInputs, topic_questions
from lmcore.teaching.question import CHOICE, NUMERIC, Question, Table, Text, Tolerance, parse_number
from lmcore.teaching.sheet import Sheet, build_sheet, key_markdown, sheet_html, sheet_markdown

__all__ = ["CHOICE", "COURSE", "LESSON_OF", "LESSONS", "PARTS", "PageLesson", "LessonInputs", "NUMERIC", "PAGE_TOPICS", "Question", "Sheet", "TOPICS", "Table",
           "Text", "Tolerance", "build_sheet", "key_markdown", "parse_number", "sheet_html", "sheet_markdown",
           "topic_questions"]
