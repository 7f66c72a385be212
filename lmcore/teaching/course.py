"""The course, each page described once: its parts (the tabs of the page), the slides of each part
(page sections and predict-then-reveal questions, in the order of the course notes) and the question
topics it draws from. The page's tabs (``ui.navigation.PARTS``), its projector deck and the course's
run from page to page are all read from :data:`COURSE`.

A slide is a page section (``"sec:<name>"``, drawn by the page's own code after
``deck.section(name)``) or a question (``"q:<qid>"``, the predict-then-reveal widget); a question
comes before the section that explains it. In the address a section slide is ``?slide=<name>`` and
a question slide ``?slide=q-<qid>``. A page with topics gets a last part, ``questions``, that lists
all its questions (normal view); in projector view each question is a slide of its own.
"""
from __future__ import annotations

from dataclasses import dataclass

from lmcore.teaching.lesson import TOPICS

QUESTIONS_PART = "questions"


@dataclass(frozen=True)
class Part:
    """One tab of a page and the slides it holds, in lesson order."""

    name: str
    slides: tuple[str, ...]


@dataclass(frozen=True)
class PageLesson:
    """One page as a lesson: its parts (tabs, in order), and the question topics it draws from."""

    page: str
    parts: tuple[Part, ...]
    planned_topics: tuple[str, ...] = ()

    @property
    def topics(self) -> tuple[str, ...]:
        """The page's question topics that have a generator (:data:`lmcore.teaching.lesson.TOPICS`)."""
        return tuple(t for t in self.planned_topics if t in TOPICS)

    @property
    def part_names(self) -> tuple[str, ...]:
        """The page's tabs in order: its parts, then the questions part if it has topics."""
        return tuple(p.name for p in self.parts) + ((QUESTIONS_PART,) if self.topics else ())

    @property
    def slides(self) -> tuple[str, ...]:
        """The deck: every part's slides, part after part (a question of a topic without a generator
        is left out)."""
        return tuple(slide for part in self.parts for slide in part.slides
                     if not slide.startswith("q:") or slide[2:].partition(".")[0] in self.topics)

    @property
    def sections(self) -> tuple[str, ...]:
        """The names of the page's sections (``deck.section(name)``)."""
        return tuple(s.partition(":")[2] for s in self.slides if s.startswith("sec:"))

    def part_of(self, slide: str) -> str:
        """The part (tab) that holds ``slide``."""
        return next(p.name for p in self.parts if slide in p.slides)

    def part_showing(self, slide: str) -> str:
        """The tab that shows ``slide`` in normal view: a question's is the questions part."""
        return QUESTIONS_PART if slide.startswith("q:") and self.topics else self.part_of(slide)

    def first_slide_of(self, part: str) -> str:
        """The first slide of the part ``part`` (the questions part: the first question slide)."""
        if part == QUESTIONS_PART:
            return next((s for s in self.slides if s.startswith("q:")), self.slides[0])
        return next(p.slides[0] for p in self.parts if p.name == part)


def part_label_key(page: str, part: str) -> str:
    """The catalogue key of a part's tab label: ``parts.<page>.<part>``; the questions part's is shared."""
    return "parts.questions" if part == QUESTIONS_PART else f"parts.{page}.{part}"


def slide_param(slide: str) -> str:
    """The slide's name in the address: ``sec:table`` → ``table``, ``q:ngram.unseen`` → ``q-ngram.unseen``."""
    kind, _, name = slide.partition(":")
    return name if kind == "sec" else "q-" + name


def _lesson(page: str, topics: tuple[str, ...], **parts: tuple[str, ...]) -> PageLesson:
    return PageLesson(page, tuple(Part(name, slides) for name, slides in parts.items()), topics)


# The course notes' order: the corpus, chain rule → n-grams → RNN → gradients → LSTM → conditional
# LMs → decoding. Home leads into it and is not a lesson.
COURSE: tuple[PageLesson, ...] = (
    _lesson("corpus", ("corpus",),
            preview=("sec:sizes", "q:corpus.oov", "sec:preview"),
            laws=("q:corpus.zipf", "q:corpus.heaps", "sec:laws"),
            tokens=("sec:tokens",)),
    _lesson("chain_rule", ("perplexity",),
            chain=("sec:sentence", "q:perplexity.top_token", "sec:chain"),
            perplexity=("q:perplexity.from_probs", "sec:perplexity", "q:perplexity.guess")),
    _lesson("ngram", ("ngram", "perplexity"),
            words=("sec:table", "q:ngram.add_delta", "sec:formula", "q:ngram.unseen", "sec:charts"),
            sparsity=("sec:sparsity", "q:perplexity.guess", "sec:grid"),
            continuation=("q:ngram.continuation", "sec:continuation"),
            sample=("sec:sample",)),
    _lesson("rnn_bptt", ("rnn_bptt",),
            step=("sec:sentence", "q:rnn_bptt.top_word", "sec:step"),
            topk=("sec:topk",),
            bptt=("q:rnn_bptt.decay", "q:rnn_bptt.truncation", "sec:bptt")),
    _lesson("gradients", ("gradients",),
            curves=("q:gradients.regime", "q:gradients.threshold", "sec:curves"),
            why=("q:gradients.lstm", "sec:why"),
            connectivity=("sec:connectivity",),
            clipping=("q:gradients.clip", "sec:clipping"),
            run=("sec:run",)),
    _lesson("lstm", ("lstm",),
            gates=("sec:model", "q:lstm.forget", "sec:gates"),
            gradient=("q:lstm.memory", "sec:gradient"),
            edit=("q:lstm.edit", "sec:edit"),
            compare=("sec:compare",)),
    _lesson("seq2seq", ("seq2seq",),
            bottleneck=("sec:model", "q:seq2seq.bottleneck", "q:seq2seq.attention", "sec:bottleneck"),
            example=("q:seq2seq.factor", "q:seq2seq.greedy", "sec:example", "sec:beam")),
    _lesson("decoding", ("decoding",),
            search=("sec:setup", "q:decoding.greedy", "sec:tree", "q:decoding.beam", "sec:nbest", "sec:length"),
            sweep=("q:decoding.gain", "sec:sweep")),
)
LESSON_OF: dict[str, PageLesson] = {lesson.page: lesson for lesson in COURSE}
PARTS: dict[str, tuple[str, ...]] = {lesson.page: lesson.part_names for lesson in COURSE}
LESSONS: dict[str, tuple[str, ...]] = {lesson.page: lesson.slides for lesson in COURSE}
PAGE_TOPICS: dict[str, tuple[str, ...]] = {lesson.page: lesson.topics for lesson in COURSE}


def next_lesson(page: str) -> PageLesson | None:
    """The lesson after ``page``'s in the course, or None after the last."""
    pages = [lesson.page for lesson in COURSE]
    i = pages.index(page)
    return COURSE[i + 1] if i + 1 < len(COURSE) else None


def previous_lesson(page: str) -> PageLesson | None:
    """The lesson before ``page``'s in the course, or None before the first."""
    pages = [lesson.page for lesson in COURSE]
    i = pages.index(page)
    return COURSE[i - 1] if i > 0 else None
