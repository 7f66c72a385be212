"""Teaching mode in Streamlit: projector view with one section per slide, predict-then-reveal
questions, exercise sheets, figure/table exports and a "share this view" QR code.

A page uses it through one object and a few lines::

    deck = teaching.deck("gradients")          # top: projector CSS, slide bar, sidebar tools
    deck.settings(hidden=hidden)               # the page's settings: its questions, share link and sheet
    deck.section("curves")                     # one line before each section of the page
    deck.chart(fig, "gradient-curves", left)   # instead of plot(fig, left)
    deck.questions()                           # the page's last part: its questions, or a question slide
    deck.tools()                               # bottom: the sidebar's share link and exercise sheet

The questions are the page's last part (ui/sections.py): they run, and reach the page, only
when the student opens that part, so a control's rerun does not redraw a dozen question forms.

In projector view only the current slide is shown: the page's other sections run (their widgets
keep their values) inside a hidden container that is emptied when the section ends, so neither
they nor any answer reach the page. Answers live in server memory (the cached questions) and
session state only; the page receives a question's answer when the student presses Reveal.
"""
from __future__ import annotations

from typing import Any

import pandas as pd
import plotly.graph_objects as go
import plotly.io
import streamlit as st

from lmcore.teaching import LessonInputs
from lmcore.teaching.course import (COURSE, LESSON_OF, QUESTIONS_PART, PageLesson, next_lesson, previous_lesson,
                                    slide_param)
from lmcore.teaching.export import SLIDE, ExportError, export_name, figure_image
from lmcore.teaching.projector import projector_figure
from ui.charts import plot, styled_once
from ui import live_class
from ui.sections import keep_widget_values, part_bar, show_part
from ui.tables import text_table
from ui.teaching_questions import lesson_inputs, page_questions, predict_then_reveal
from ui.teaching_share import SHEET_BOX, share_view, sheet_download
from ui.state import corpus_name, current_corpus, fragment_rerun, page_settings, query_param, set_query_params, tr

COURSE_MOVE = "teaching_course_move"  # set by Previous/Next past a deck's end: the lesson to open

# Every lesson page, in either view: a wide formula or Markdown table scrolls sideways in its own box
# (a phone is 390 px wide), and on a narrow screen the Plotly modebar is hidden (it covered the chart's title)
# and buttons are large enough for a finger.
PAGE_CSS = """<style>
.katex-display { overflow-x: auto; overflow-y: hidden; max-width: 100%; padding: 0.2rem 0; }
[data-testid="stMarkdownContainer"] table { display: block; max-width: 100%; overflow-x: auto; }
@media (max-width: 640px) {
  .js-plotly-plot .modebar-container { display: none !important; }
  .stButton button, [data-testid="stFormSubmitButton"] button, [data-testid="stPopover"] button,
  [data-testid="stDownloadButton"] button { min-height: 44px; }
  [data-testid="stRadio"] label { min-height: 36px; align-items: center; }
  [data-testid="stTextInput"] input { min-height: 44px; font-size: 16px; }
  /* the slide bar in two rows: its title with the sheet and share menus, then Previous and Next
     side by side (stacked, as Streamlit stacks columns on a phone, it took five rows above a slide) */
  .st-key-lmlab-slide-bar [data-testid="stHorizontalBlock"] { flex-flow: row wrap !important; gap: 0.5rem; }
  .lmlab-keys-hint { display: none; }  /* a phone has no arrow keys */
  .st-key-lmlab-slide-bar [data-testid="stColumn"] { width: auto !important; min-width: 0 !important; }
  .st-key-lmlab-slide-bar [data-testid="stColumn"]:nth-child(2) { order: -2; flex: 1 1 55% !important; }
  .st-key-lmlab-slide-bar [data-testid="stColumn"]:nth-child(n+4) { order: -1; flex: 0 0 auto !important; }
  .st-key-lmlab-slide-bar [data-testid="stColumn"]:is(:nth-child(1), :nth-child(3)) { flex: 1 1 40% !important; }
}
</style>"""

PROJECTOR_CSS = """<style>
html { font-size: 20px; }
[data-testid="stMainBlockContainer"] { padding-top: 3.4rem; padding-bottom: 2rem; max-width: 100%; }
[class*="st-key-lmlab-offstage"] { display: none !important; }
[data-testid="stMarkdownContainer"] table { font-size: 1.1rem; }
/* the slide bar names the page: its title and the caption under it give the room to the slide */
[data-testid="stElementContainer"]:has(h1),
[data-testid="stElementContainer"]:has(h1) + [data-testid="stElementContainer"]:has([data-testid="stCaptionContainer"])
  { display: none !important; }
</style>"""

KEYS_JS = """<script>
(function () {
  const doc = window.parent ? window.parent.document : document;
  const win = doc.defaultView || window;
  if (win.__lmlabKeys) doc.removeEventListener("keydown", win.__lmlabKeys);
  win.__lmlabKeys = function (e) {
    const a = doc.activeElement;
    const busy = a && (/^(INPUT|TEXTAREA|SELECT)$/.test(a.tagName) || a.isContentEditable ||
                       ["slider", "radio", "combobox", "listbox", "textbox"].includes(a.getAttribute("role")));
    if (busy || e.altKey || e.ctrlKey || e.metaKey) return;
    const key = {ArrowRight: "next", PageDown: "next", ArrowLeft: "prev", PageUp: "prev"}[e.key];
    const button = key && doc.querySelector(".st-key-lmlab-" + key + " button");
    if (button && !button.disabled) { e.preventDefault(); button.click(); }
  };
  doc.addEventListener("keydown", win.__lmlabKeys);
})();
</script>"""


# ------------------------------------------------------------------------------------------ projector
def projector_mode(lesson: PageLesson) -> bool:
    """Projector view on or off (``?present=1`` or the sidebar toggle); styles the page when on.
    Turned off, the page opens on the part that holds the slide that was shown."""
    if "present" in st.query_params or "teaching_present" not in st.session_state:  # the address decides
        st.session_state["teaching_present"] = query_param("present", False)
    else:  # a page opened without it keeps the choice (Streamlit drops the state of widgets not drawn on a page)
        st.session_state["teaching_present"] = st.session_state["teaching_present"]
    on = st.sidebar.toggle(tr("teaching.projector"), key="teaching_present", help=tr("teaching.projector_help"),
                           on_change=_projector_to_address)
    if on:
        set_query_params(present=1)
        st.set_page_config(initial_sidebar_state="collapsed")
        st.html(PROJECTOR_CSS)
        st.html(KEYS_JS, unsafe_allow_javascript=True)
    else:
        st.query_params.pop("present", None)
        shown = st.query_params.pop("slide", None)
        slides = {slide_param(s): s for s in lesson.slides}
        if shown in slides:
            st.query_params["part"] = lesson.part_showing(slides[shown])
    return on


def _projector_to_address() -> None:
    """The toggle moved: the address says so before the run (which reads it)."""
    if st.session_state.get("teaching_present"):
        st.query_params["present"] = "1"
    else:
        st.query_params.pop("present", None)


def styled(fig, projector: bool):
    """The figure as shown: projector fonts in projector view, unchanged otherwise."""
    if not projector:
        return fig
    return styled_once(fig, lambda f: projector_figure(f if isinstance(f, go.Figure) else go.Figure(f)))


def lesson_link(where, lesson: PageLesson, number: int, slide: str | None = None) -> None:
    """A link to ``lesson``'s page in projector view, at ``slide`` (default: its first)."""
    where.page_link(f"app_pages/{lesson.page}.py", label=f"{number}. {tr(f'nav.{lesson.page}')}",
                    query_params={"present": "1", "slide": slide_param(slide or lesson.slides[0])})


def course_menu(where) -> None:
    """The course's lessons in the notes' order, each a link to its first slide in projector view."""
    where.markdown(f"**{tr('teaching.course.header')}**")
    for number, lesson in enumerate(COURSE, 1):
        lesson_link(where, lesson, number)


# ------------------------------------------------------------------------------------------ the deck
def deck(page: str) -> Deck:
    """Teaching mode for one page (a page of :data:`lmcore.teaching.COURSE`)."""
    return Deck(page)


class Deck:
    """Projector slides, exports and questions of one page run. The address is the only record of
    the slide shown (``?slide=``): every run reads it, Previous/Next write it before the run, so a
    copied link, Back and Forward show the slide they name."""

    def __init__(self, page: str) -> None:
        self.page = page
        self.lesson = LESSON_OF[page]
        self.slides = self.lesson.slides
        self.projector = projector_mode(self.lesson)
        self._offstage: tuple[Any, Any] | None = None
        self._count = 0
        self.shown = False
        self.current = self._current_slide() if self.projector else None
        st.html(PAGE_CSS)
        st.sidebar.markdown(f"**{tr('teaching.sidebar.header')}**")
        self._sidebar = st.sidebar.container()  # filled by tools(), once the page has put its settings in the URL
        self._share = None
        self._inputs: LessonInputs | None = None
        self._settings: dict[str, Any] = {}
        if self.projector:
            self._slide_bar()
            live_class.projector(self)  # a live class: start it, or move it to this slide

    # --- slides
    def _current_slide(self) -> str:
        names = [slide_param(s) for s in self.slides]
        name = query_param("slide", names[0], choices=names)
        set_query_params(slide=name)  # a bad or missing slide: the address names the one shown
        return self.slides[names.index(name)]

    def _move(self, step: int) -> None:
        """Previous/Next (a button's callback): inside the deck the address changes before the run;
        past its first or last slide the run opens the previous or next lesson (:meth:`_slide_bar`)."""
        i = self.slides.index(self.current) + step
        if 0 <= i < len(self.slides):
            st.query_params["slide"] = slide_param(self.slides[i])
            return
        lesson = previous_lesson(self.page) if i < 0 else next_lesson(self.page)
        if lesson is not None:  # the course goes on: the previous lesson's last slide, the next one's first
            st.session_state[COURSE_MOVE] = (lesson.page, slide_param(lesson.slides[-1 if i < 0 else 0]))

    def _slide_bar(self) -> None:
        i, last = self.slides.index(self.current), len(self.slides) - 1
        before, after = previous_lesson(self.page), next_lesson(self.page)
        left, mid, right, menu, share = st.container(key="lmlab-slide-bar").columns([2, 6, 2, 1, 1],
                                                                                  vertical_alignment="center")
        prev_label = tr("teaching.prev") if i > 0 or before is None else tr("teaching.prev_lesson")
        next_label = tr("teaching.next") if i < last or after is None else tr("teaching.next_lesson")
        left.button(prev_label, key="lmlab-prev", on_click=self._move, args=(-1,), disabled=i == 0 and before is None,
                    width="stretch")
        right.button(next_label, key="lmlab-next", on_click=self._move, args=(1,), disabled=i == last and after is None,
                     type="primary", width="stretch")
        where = tr(f"nav.{self.page}")
        if i == last and after is not None:
            where += " · " + tr("teaching.course.then", lesson=tr(f"nav.{after.page}"))
        mid.markdown(f"**{tr('teaching.slide', i=i + 1, n=len(self.slides))} · {self._slide_title(self.current)}**  \n"
                     f"<small>{where}<span class='lmlab-keys-hint'> · {tr('teaching.keys_hint')}</span></small>",
                     unsafe_allow_html=True)
        course_menu(menu.popover(":material/menu_book:", help=tr("teaching.course.help")))
        self._share = share.popover(":material/qr_code_2:", help=tr("teaching.share.header"))
        move = st.session_state.pop(COURSE_MOVE, None)
        if move is not None:
            page, slide = move
            st.switch_page(f"app_pages/{page}.py", query_params={"present": "1", "slide": slide})

    def _slide_title(self, slide: str) -> str:
        kind, _, name = slide.partition(":")
        if kind == "sec":
            return tr(f"teaching.sec.{self.page}.{name}")
        questions = [s for s in self.slides if s.startswith("q:")]
        return tr("teaching.slide.question", i=questions.index(slide) + 1)

    def fragment(self, fn, key: str | None = None):
        """``fn`` as a fragment (its controls rerun only it) in normal view; in projector view the
        page runs whole (its slides hide the sections that are not shown), so ``fn`` itself."""
        if self.projector:
            return fn
        return st.fragment(fn) if key is None else st.fragment(key=key)(fn)

    def section(self, name: str) -> None:
        """Mark the start of a page section (ends the previous one). In projector view, a section
        that is not the current slide runs hidden and is removed when it ends."""
        if name not in self.lesson.sections:
            raise KeyError(f"section {name!r} is not in the {self.page} lesson")
        if not self.projector:
            return
        self._close_offstage()
        if self.current != f"sec:{name}":
            self._count += 1
            placeholder = st.empty()
            box = placeholder.container(key=f"lmlab-offstage-{self._count}")
            box.__enter__()
            self._offstage = (placeholder, box)
        else:
            self.shown = True

    def _close_offstage(self) -> None:
        if self._offstage is not None:
            placeholder, box = self._offstage
            box.__exit__(None, None, None)
            placeholder.empty()
            self._offstage = None

    def settings(self, **settings: Any) -> None:
        """The page's settings, from which its questions and exercise sheet are made. May run inside a
        fragment: if a rerun of it changed them while the sidebar's sheet is open, the whole page runs
        again so that the sheet follows (its share link follows the kept settings: ui/state.py)."""
        self._inputs, self._settings = None, dict(settings)
        drawn = st.session_state.get(f"teaching_tools_{self.page}")
        if fragment_rerun() and drawn is not None and drawn != settings and st.session_state.get(SHEET_BOX):
            st.rerun(scope="app")
        if self._share is not None:
            share_view(self.page, self._share, big=True)

    def inputs(self) -> LessonInputs:
        """The live inputs of the questions, made when first needed (questions, a sheet)."""
        if self._inputs is None:
            self._inputs = lesson_inputs(self.page, **self._settings)
        return self._inputs

    def questions(self) -> None:
        """The page's questions for its :meth:`settings` (normal view: the page's last part) or the
        current question slide (projector view)."""
        self._close_offstage()
        if not self.projector:
            st.caption(tr("teaching.quiz.caption"))
            predict_then_reveal(self, page_questions(self.page, self.inputs()))
            return
        if self.current.startswith("q:"):
            wanted = [q for q in page_questions(self.page, self.inputs()) if q.qid == self.current[2:]]
            if wanted:
                predict_then_reveal(self, wanted, number=self._slide_title(self.current))
            else:
                st.info(tr("teaching.quiz.none"))
        elif not self.shown:
            st.info(tr("teaching.slide.empty"))

    def part_bar(self) -> str | None:
        """The bar of the page's parts alone (normal view; ui/sections.py), drawn before the
        fragment of the page's settings, which then runs the open part (:meth:`parts` with ``open_part``):
        outside the fragment, the bar is not sent and drawn again at each move of a setting.
        Returns the open part's name; projector view: draws nothing, None."""
        return None if self.projector else part_bar(self.page)

    def parts(self, parts: dict[str, Any], keep: tuple[str, ...] = (), open_part: str | None = None) -> str | None:
        """The page's parts (ui/sections.py), its questions the last; with ``open_part`` (what
        :meth:`part_bar` returned), the bar is drawn already and only that part runs here. ``keep``: widgets
        inside the parts whose values outlive the runs that do not draw them. In projector view only
        the part that holds the current slide runs (its other sections hidden), or none on a question
        slide, then the question slide: a slide costs what its part costs, as a part does."""
        keep_widget_values(keep)
        if not self.projector:
            if self.lesson.topics:
                parts = {**parts, QUESTIONS_PART: self.questions}
            name = open_part or part_bar(self.page)
            show_part(self.page, parts, name)
            return name
        if not self.current.startswith("q:"):
            parts[self.lesson.part_of(self.current)]()
        self.questions()  # closes the last hidden section; a question slide's question
        return None

    def tools(self) -> None:
        """The sidebar's share link and exercise sheet, for the page's :meth:`settings` (a whole-page
        run: a fragment cannot draw in the sidebar)."""
        share_view(self.page, self._sidebar)
        sheet_download(self.inputs, self.lesson.topics, self._sidebar)
        st.session_state[f"teaching_tools_{self.page}"] = self._settings

    # --- figures and tables
    def file_name(self, what: str, ext: str, size: tuple[int, int] | None = None) -> str:
        """A file name saying page, what, corpus and the page's settings (ui/state.py's ``keep_settings``)."""
        return export_name(self.page, what, corpus_name(current_corpus()), page_settings(), ext, size)

    def chart(self, fig, name: str, where=None, key: str | None = None) -> None:
        """Show a figure (a Figure or its dict; projector fonts in projector view) with PNG/SVG
        slide-size downloads. In projector view every chart takes the full width (side-by-side
        columns are too narrow)."""
        where = st if self.projector or where is None else where
        plot(styled(fig, self.projector), where, key=key)
        figure_downloads(fig, self.file_name(name, "{ext}", SLIDE), f"lmlab-export-{self.page}-{name}", where)

    def table(self, frame: pd.DataFrame, name: str, where=None, **style: Any) -> None:
        """Show a table (ui/tables.py: light, every cell text; ``style``: its ``formats``, ``shade``,
        ``max_height``) with a CSV download named after page, corpus and settings."""
        where = where or st
        text_table(frame, where=where, **style)
        where.download_button(tr("teaching.export.csv"), lambda: frame.to_csv(index=False).encode("utf-8"),
                              file_name=self.file_name(name, "csv"), mime="text/csv", on_click="ignore",
                              key=f"lmlab-csv-{name}")


# ------------------------------------------------------------------------------------------ exports
@st.cache_data(show_spinner=False, max_entries=64)
def _image(fig_json: str, fmt: str, width: int, height: int) -> bytes:
    import plotly.io as pio

    return figure_image(pio.from_json(fig_json), fmt, width, height)


def figure_downloads(fig, file_pattern: str, key: str, where=None) -> None:
    """A small "Export" popover (widget key ``key``, one per chart of a page): the figure as PNG and SVG at slide size, made when
    clicked. Its buttons are drawn only while it is open: a move of a control redraws the label alone
    (two buttons fewer per chart for the browser to render)."""
    where = where or st
    w, h = SLIDE
    box = where.popover(tr("teaching.export.label"), key=key, on_change="rerun")
    if not box.open:
        return

    def make(ext: str):
        def render() -> bytes:  # called on the click: no JSON of the figure on every run
            try:
                text = fig.to_json() if isinstance(fig, go.Figure) else plotly.io.to_json(fig, validate=False)
                return _image(text, ext, w, h)
            except ExportError as error:
                return tr("teaching.export.failed", reason=str(error)).encode("utf-8")
        return render

    with box:
        for ext, mime in (("png", "image/png"), ("svg", "image/svg+xml")):
            st.download_button(tr(f"teaching.export.{ext}", w=w, h=h), make(ext), file_name=file_pattern.format(ext=ext),
                               mime=mime, on_click="ignore", key=f"lmlab-{ext}-{file_pattern}")


# ------------------------------------------------------------------------------------------ questions
