"""Browser side of bench/page_latency.py: a Streamlit server for one code tree, and Chromium timings.

"Settled" is measured in the page itself: a MutationObserver stamps every DOM change with
performance.now(), and a page has settled when the script is not running, no skeleton or stale
element is left and nothing has changed for ``QUIET`` seconds; the settle time is the last change.
A run is seen by the app's script-state attribute turning to "running", or from it (``oldValue``):
a fragment's run can be over before the observer is called, and a run not seen made ``settle``
wait 3 s and count any change in that time (a hover label under the pointer, say) as the page's.
Bytes are the WebSocket frames the server sent between the action and the settle.
"""
from __future__ import annotations

import os
import time
from contextlib import contextmanager
from pathlib import Path

from classroom_monitor import wait_at_rest
from streamlit_process import streamlit_process

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage"]
QUIET = 0.4  # seconds without a DOM change
INSTRUMENT = """
window.__lat = {last: performance.now(), action: 0, ran: 0};
new MutationObserver((records) => {
  const now = performance.now();
  window.__lat.last = now;
  for (const r of records) {  // a run began, or ended (a fast one is over before the observer is called)
    if (r.type === 'attributes' && r.attributeName === 'data-test-script-state'
        && (r.oldValue === 'running' || r.target.getAttribute('data-test-script-state') === 'running')) {
      window.__lat.ran = now;
    }
  }
}).observe(document, {subtree: true, childList: true, attributes: true, characterData: true, attributeOldValue: true});
for (const type of ['pointerdown', 'keydown']) {
  document.addEventListener(type, () => { window.__lat.action = performance.now(); }, true);
}
"""
# Plotly's drawing, counted in the page: every call of the API functions that draw (Plotly.react,
# newPlot, relayout, …, Plots.resize), every draw that ended (a plot's first draw, then each
# ``plotly_afterplot`` event) and how many of them made a plot from scratch (an element without one:
# a new or remounted chart). Wraps window.Plotly when it is set (Streamlit's chunk sets it).
DRAWS = """
window.__draws = {calls: {}, draws: 0, made: 0};
(() => {
  const count = (name) => { window.__draws.calls[name] = (window.__draws.calls[name] || 0) + 1; };
  const hook = (gd) => {
    if (gd && typeof gd.on === 'function' && !gd.__drawsHooked) {
      gd.__drawsHooked = true;
      gd.on('plotly_afterplot', () => { window.__draws.draws += 1; });
    }
  };
  const wrap = (P) => {
    if (!P || P.__drawsWrapped) return;
    P.__drawsWrapped = true;
    for (const name of ['newPlot', 'react', 'relayout', 'restyle', 'update', 'redraw']) {
      const f = P[name];
      if (typeof f !== 'function') continue;
      P[name] = function (gd, ...rest) {
        count(name);
        const fresh = gd && typeof gd === 'object' && !gd.__drawsHooked;
        const out = f.call(this, gd, ...rest);
        Promise.resolve(out).then(() => {  // a first draw ends before its promise: counted here
          if (fresh && gd._fullLayout && !gd.__drawsHooked) {
            window.__draws.draws += 1; window.__draws.made += 1; hook(gd);
          }
        }, () => {});
        return out;
      };
    }
    if (P.Plots && typeof P.Plots.resize === 'function') {
      const resize = P.Plots.resize;
      P.Plots.resize = function (...args) { count('Plots.resize'); return resize.apply(this, args); };
    }
  };
  let current;
  Object.defineProperty(window, 'Plotly', {configurable: true, get: () => current,
                                           set: (value) => { wrap(value); current = value; }});
})();
"""
STATE = """() => {
  const app = document.querySelector("[data-testid='stApp']");
  const main = document.querySelector("[data-testid='stMain']") || document;
  return {state: app && app.getAttribute('data-test-script-state'),
          connected: app && app.getAttribute('data-test-connection-state') === 'CONNECTED',
          now: performance.now(), last: window.__lat.last, action: window.__lat.action, ran: window.__lat.ran,
          skeletons: document.querySelectorAll("[data-testid='stSkeleton']").length,
          stale: main.querySelectorAll("[data-stale='true']").length,
          busy: main.querySelectorAll("[data-testid='stProgress'], [data-testid='stSpinner']").length};
}"""


def _is_script_finished(payload: bytes) -> bool:
    """Whether a WebSocket frame from the server is the ForwardMsg that ends a script run."""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    try:
        return ForwardMsg.FromString(payload).WhichOneof("type") == "script_finished"
    except Exception:  # noqa: BLE001 - not a ForwardMsg: not the end of a run
        return False


class Server(str):
    """A running server's URL that can also tell how much CPU its process has used (seconds)."""

    pid: int

    def cpu(self) -> float:
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime, every thread

    def wait_at_rest(self, at_least: float) -> float:
        """Rest ``at_least`` seconds, then until its CPU is idle (its idle-time warm-up done): classroom_monitor's."""
        return wait_at_rest(self.cpu, at_least)


@contextmanager
def server(tree: Path, timeout: float = 180):
    """``streamlit run app.py`` in ``tree`` (a fresh process: cold caches); yields its :class:`Server` URL."""
    with streamlit_process(tree, timeout=timeout) as (address, process):
        url = Server(address)
        url.pid = process.pid
        yield url


class Tab:
    """One browser context and page, instrumented, counting the bytes the server sends."""

    def __init__(self, browser) -> None:
        self.context = browser.new_context(viewport={"width": 1400, "height": 1000}, locale="en-US")
        self.context.add_init_script(INSTRUMENT)
        self.context.add_init_script(DRAWS)
        self.page = self.context.new_page()
        self.frames: list[tuple[float, int]] = []
        self.finished: list[float] = []  # when a run's script_finished message arrived (time.perf_counter)
        self.page.on("websocket", lambda ws: ws.on("framereceived", self._received))

    def _received(self, payload: bytes | str) -> None:
        now = time.perf_counter()
        self.frames.append((now, len(payload)))
        if isinstance(payload, bytes) and _is_script_finished(payload):
            self.finished.append(now)

    def close(self) -> None:
        self.context.close()

    def draws(self, reset: bool = True) -> dict:
        """``{"draws": n, "made": n, "calls": {name: n}}``: Plotly's drawing since the last reset (:data:`DRAWS`)."""
        return self.page.evaluate("(reset) => { const d = window.__draws; if (reset) window.__draws = "
                                  "{calls: {}, draws: 0, made: 0}; return d; }", reset)

    def now(self) -> float:
        return self.page.evaluate("performance.now()")

    def bytes_since(self, start: float) -> int:
        return sum(n for t, n in self.frames if t >= start)

    def settle(self, action_ms: float, timeout: float = 300, quiet: float = QUIET, until_idle: bool = False,
               changed=None, since: float | None = None) -> float:
        """Seconds from ``action_ms`` (page clock) to the last DOM change before the page settled.

        ``until_idle``: also wait for every progress bar and spinner to go (background runs done).
        ``changed``: a callable that must return True first (e.g. the new corpus is shown).
        ``since``: the action's time.perf_counter(); a run's end message received after it is a run
        seen, as the script-state attribute's change is (the attribute may not change at all for a
        run over within one frame of the browser's)."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            s = self.page.evaluate(STATE)
            ran = s["ran"] >= action_ms or (since is not None and any(t >= since for t in self.finished))
            ready = (s["connected"] and s["state"] == "notRunning" and s["skeletons"] == 0 and s["stale"] == 0
                     and s["now"] - s["last"] >= 1000 * quiet and (ran or s["now"] - action_ms > 3000)
                     and (not until_idle or s["busy"] == 0) and (changed is None or changed()))
            if ready:
                return max(0.0, (s["last"] - action_ms) / 1000)
            time.sleep(0.05)
        raise TimeoutError(f"page did not settle within {timeout:.0f} s")

    def open(self, url: str, timeout: float = 300) -> float:
        """Load ``url`` and wait until it settled; seconds from navigation start."""
        self.page.goto(url, timeout=timeout * 1000)
        return self.settle(0.0, timeout)

    def click_nav(self, url_path: str, timeout: float = 300) -> tuple[float, int]:
        """Click the sidebar link to a page: (seconds to settled, bytes received)."""
        link = self.page.locator(f"[data-testid='stSidebarNav'] a[href$='/{url_path}']").first
        start = time.perf_counter()
        link.click()
        seconds = self.settle(self.page.evaluate("window.__lat.action"), timeout, since=start)
        return seconds, self.bytes_since(start)

    def move(self, key: str, kind: str, step: int, timeout: float = 120) -> tuple[float, int]:
        """Move the control with Streamlit key ``key`` one step (alternating direction with ``step``)."""
        box = self.page.locator(f".st-key-{key}").first
        start = time.perf_counter()
        if kind == "slider":
            thumb = box.get_by_role("slider").first
            thumb.focus()
            thumb.press("ArrowRight" if step % 2 == 0 else "ArrowLeft")
        elif kind == "radio":
            box.get_by_role("radio").nth(step).click(force=True)
        elif kind == "selectbox":
            box.get_by_role("combobox").first.click()
            self.page.get_by_role("option").nth(step).click()
        else:
            raise ValueError(kind)
        seconds = self.settle(self.page.evaluate("window.__lat.action"), timeout, since=start)
        return seconds, self.bytes_since(start)

    def upload(self, path: Path, first_timeout: float = 300, fill_timeout: float = 900) -> tuple[float, float]:
        """Upload a file in the sidebar: (seconds to first useful content, seconds until every part is filled)."""
        summary = self.page.locator(".st-key-corpus_summary").first  # ui/sidebar.py: tokens · types · sentences
        before = summary.inner_text()
        changed = lambda: summary.inner_text() != before  # noqa: E731
        start = self.now()
        self.page.locator("[data-testid='stSidebar'] input[type='file']").set_input_files(str(path))
        first = self.settle(start, first_timeout, changed=changed)
        filled = self.settle(start, fill_timeout, quiet=1.3, until_idle=True, changed=changed)
        return first, filled


CALIBRATION = """(n) => {
  const words = Array.from({length: 10}, (_, i) => 'word' + i);
  const data = [0, 1, 2, 3].map(k => ({type: 'bar', orientation: 'h', name: 'method ' + k, y: words,
                                       x: words.map((_, i) => 1 / (i + k + 2))}));
  const times = [];
  for (let i = 0; i < n; i++) {
    const div = document.createElement('div');
    div.style.width = '600px';
    document.body.appendChild(div);
    const start = performance.now();
    Plotly.newPlot(div, data, {title: {text: 'calibration'}, barmode: 'group', height: 390});
    div.getBoundingClientRect();
    times.push(performance.now() - start);
    Plotly.purge(div);
    div.remove();
  }
  return times.sort((a, b) => a - b)[Math.floor(n / 2)];
}"""


def plotly_page(browser, viewport: dict | None = None):
    """A blank page (``viewport``: Chromium's default if None) with plotly.js, the copy Plotly ships,
    and a ``#plot`` div."""
    import plotly

    page = browser.new_page(viewport=viewport)
    page.set_content("<html><body style='margin:0'><div id='plot'></div></body></html>")
    page.add_script_tag(path=str(Path(plotly.__file__).parent / "package_data" / "plotly.min.js"))
    return page


def browser_speed_ms(browser, n: int = 15) -> float:
    """How fast this machine's Chromium is at this moment: the median time plotly.js takes to draw one
    fixed bar chart (ms). Wall times of the same code vary by a third from one run to the next on a
    shared machine; this tells a slow moment of the machine from slow code."""
    page = plotly_page(browser)
    try:
        page.evaluate(CALIBRATION, 3)  # compiled and warm, as the app's bundle is after a first page
        return page.evaluate(CALIBRATION, n)
    finally:
        page.close()


def launch(playwright):
    return playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
