"""Running the app in AppTest: the whole app (app.py + sidebar) on a chosen page and language.

AppTest knows the app's charts, formulas, tables and passages (ui/plotly_element.py,
ui/formula_element.py and ui/markup_element.py, components-v2 elements) as what they are: elements of
type ``plotly_chart`` whose ``proto.spec`` is the figure's JSON, as ``st.plotly_chart``'s were, of type
``latex`` whose ``value`` is the formula's body, as ``st.latex``'s was, and of type ``html`` whose
``proto.body`` is the markup, as ``st.html``'s was. So ``at.get("plotly_chart")``, ``at.latex`` and
``at.get("html")`` find every chart, formula and table a page shows (:func:`known_proto`)."""
from __future__ import annotations

import base64
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd

from streamlit.proto.BidiComponent_pb2 import BidiComponent
from streamlit.proto.Html_pb2 import Html
from streamlit.proto.Markdown_pb2 import Markdown
from streamlit.proto.PlotlyChart_pb2 import PlotlyChart
from streamlit.testing.v1 import AppTest, element_tree

from ui.charts import HIDDEN
from ui.formula_element import NAME as FORMULA_ELEMENT
from ui.plotly_element import NAME as CHART_ELEMENT
from ui.markup_element import NAME as MARKUP_ELEMENT

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "app.py")


def chart_proto(element: BidiComponent) -> PlotlyChart | None:
    """The chart an element of ui/plotly_element.py shows, as a PlotlyChart (``spec``: the figure's
    JSON, ``id``: the element's); None for any other components-v2 element."""
    if element.component_name != CHART_ELEMENT or element.bytes == HIDDEN:  # a hidden chart shows nothing
        return None
    return PlotlyChart(id=element.id, spec=element.bytes.decode("utf-8"))


def formula_proto(element: BidiComponent) -> Markdown | None:
    """The formula an element of ui/formula_element.py shows, as ``st.latex``'s Markdown (``body``:
    the LaTeX between ``$$`` lines); None for any other components-v2 element."""
    if element.component_name != FORMULA_ELEMENT:
        return None
    return Markdown(body=f"$$\n{element.bytes.decode('utf-8')}\n$$", element_type=Markdown.Type.LATEX)


def known_proto(element: BidiComponent) -> tuple[str, PlotlyChart | Markdown | Html] | None:
    """("plotly_chart", its chart), ("latex", its formula) or ("html", its markup) for our elements;
    None for any other."""
    chart = chart_proto(element)
    if chart is not None:
        return "plotly_chart", chart
    if element.component_name == MARKUP_ELEMENT:
        return "html", Html(body=element.bytes.decode("utf-8"))
    found = formula_proto(element)
    return None if found is None else ("latex", found)


_unknown_element = element_tree.UnknownElement.__init__


def _known_or_unknown(self, proto, root) -> None:
    _unknown_element(self, proto, root)
    known = known_proto(self.proto) if self.type == "bidi_component" else None
    if known is not None:
        self.type, self.proto = known


element_tree.UnknownElement.__init__ = _known_or_unknown


def run_page(stem: str, lang: str = "en", timeout: float = 120, query: dict | None = None) -> AppTest:
    """Run app.py, switch to ``app_pages/<stem>.py`` in language ``lang`` and return the finished AppTest."""
    at = AppTest.from_file(APP, default_timeout=timeout)
    at.session_state["lang"] = lang
    for name, value in (query or {}).items():
        at.query_params[name] = value
    at.run()
    if stem != "home":
        at.switch_page(f"app_pages/{stem}.py")
        at.run()
    return at


def kept_settings(at: AppTest) -> dict[str, str]:
    """The settings of the one page with settings ``at`` has shown (ui/state.py: each page's own), which
    its share link carries and the address does not."""
    from ui.state import PAGE_SETTINGS

    pages = [kept for kept in at.session_state[PAGE_SETTINGS].values() if kept]
    assert len(pages) == 1, pages
    return pages[0]


def show_part(at: AppTest, stem: str, name: str) -> AppTest:
    """Open the part ``name`` of page ``stem`` (ui/sections.py: the address names the open part) and rerun."""
    at.query_params["part"] = name
    return at.run()


def each_part(at: AppTest, stem: str):
    """Open every part of page ``stem`` in turn; yields the part's name once it ran."""
    from ui.navigation import PARTS

    for name in PARTS[stem]:
        show_part(at, stem, name)
        yield name


def setting(at: AppTest, name: str) -> str:
    """The key of the sidebar widget for setting ``name`` now (ui/sidebar.py ``widget_key``)."""
    return f"{name}.{at.session_state['sidebar_epoch']}"


def errors(at: AppTest) -> list[str]:
    """Messages of exceptions the script raised (empty when it ran cleanly)."""
    return [e.value for e in at.exception]


def finish_jobs(at: AppTest, timeout: float = 600) -> AppTest:
    """Let every queued training run finish (they run on the app's scheduler threads), then rerun."""
    from server.job_queue import scheduler

    assert scheduler().wait_idle(timeout), "training runs did not finish"
    return at.run()


def trace_values(data) -> list:
    """A Plotly trace's values, whether Plotly wrote a list or a base64 typed array."""
    if isinstance(data, dict) and "bdata" in data:
        return np.frombuffer(base64.b64decode(data["bdata"]), dtype=data["dtype"]).tolist()
    return list(data)


class _TableParser(HTMLParser):
    """The header and rows of an HTML table, as the texts of its cells."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self.rows[-1].append("".join(self._cell))
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def text_tables(at: AppTest) -> list[pd.DataFrame]:
    """The tables ui/tables.py drew (st.html), in page order, as frames of the texts a browser shows;
    a column whose every text reads as a number (∞ included) is numeric."""
    frames = []
    for element in at.get("html"):
        if "<table" not in element.proto.body:
            continue
        parser = _TableParser()
        parser.feed(element.proto.body)
        header, *rows = parser.rows
        frame = pd.DataFrame(rows, columns=header)
        for column in frame.columns:
            try:
                frame[column] = pd.to_numeric(frame[column].str.replace(",", "").replace({"∞": "inf", "−∞": "-inf"}))
            except (ValueError, TypeError):
                pass
        frames.append(frame)
    return frames


def opened_with_work_made_ahead(monkeypatch, stem: str, query: dict, counted: dict[str, tuple[object, str]],
                                timeout: float = 300) -> tuple[AppTest, list, dict[str, list]]:
    """The page ``stem`` opened with ``query``, and the work it handed over (server/prefetch.py) done:
    (the page, the (key, task) handed over, the calls counted since). ``counted``: name → (owner,
    attribute) of the functions whose calls are counted (the arguments of each), with "figures" (the
    figures serialised: built) always among them; the page is run again, so that it calls the counting ones."""
    from server import prefetch
    from ui import charts

    with prefetch.collecting() as tasks:
        at = run_page(stem, "en", timeout=timeout, query=query)
        assert not errors(at)
        for _, task in tasks:
            task()
    calls: dict[str, list] = {}
    for name, (owner, attribute) in {**counted, "figures": (charts, "spec_json")}.items():
        real, calls[name] = getattr(owner, attribute), []
        monkeypatch.setattr(owner, attribute, lambda *a, _real=real, _log=calls[name], **k: _log.append(a) or _real(*a, **k))
    at.run()
    assert not errors(at)
    return at, tasks, calls
