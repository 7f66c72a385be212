"""What a fresh server process prepares in the background while its first visitor reads the home page.

Started once per process (app.py's ``configure_process``), on one daemon thread:
0. the corpus worker processes (server/corpus_worker.py), which start in parallel;
1. the modules the pages import (pandas alone takes about a second; segno, the teaching questions,
   pandas' table styler and PIL, which tables and images need, every ``lmcore`` module);
2. Plotly's validators: the first figure of each trace kind costs ~0.15 s of validator loading; with
   them the graph_objs modules the figure builders reach (subplots, fonts, hover labels) and PIL's
   image plugins;
3. the English sample at its default settings (the corpus a new visitor sees): its n-gram counts,
   its validation and test sentences mapped to the vocabulary, and its shipped recurrent models, in
   the same shared stores the pages read (a page that asks while the warm-up builds one waits for it
   instead of building it twice);
4. ``torch._dynamo``, which every optimizer step imports: 2–3 s of CPU holding the GIL, during which
   a page's run would get half the CPU at best; then jieba's dictionary (~1 s, ~65 MB), which the
   first Chinese corpus, or sentence typed on one, loads in this process (pages tokenize what is
   typed), and the modules torch imports at a process's first optimizer step. They wait for the
   server to be idle (``IDLE_SECONDS`` without a run), however long that takes: a first training, or
   the first Chinese student of a class, pays them otherwise;
5. the Chinese and synthetic samples with their counts and shipped models, each when the server is idle;
6. once the server is idle again, everything made so far is hidden from the garbage collector
   (``server.gc_freeze.freeze_long_lived``): a full collection then visits only what sessions made since.
It gives way to the pages: before each module and each step it waits (up to a few seconds) until no
script run is going on (app.py runs inside :func:`script_run`) and none ended in the last
``AFTER_RUN_SECONDS`` (the browser draws the page then, on the same few cores), so a visitor who
clicks at once is not slowed down by it. Any failure is left for the page that needs the thing to report.
"""
from __future__ import annotations

import importlib
import pkgutil
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

WARM_MODULES = ("pandas", "pyarrow", "plotly.graph_objects", "segno", "pandas.io.formats.style", "PIL.PngImagePlugin")
HEAVY_MODULES = ("torch._dynamo",)
SAMPLES_LATER = ("chinese", "synthetic")  # built when the server is idle, after the heavy imports
GIVE_WAY_SECONDS = 3.0  # the longest the warm-up waits for a quiet moment before it goes on anyway
AFTER_RUN_SECONDS = 1.5  # a run's page is being drawn in its browser this long after the run ended
IDLE_SECONDS = 8.0  # no run for this long: the server is idle (nobody is clicking through pages)

_quiet = threading.Condition()
_running = 0
_last_end = float("-inf")  # time.monotonic() when the last run ended


@contextmanager
def script_run() -> Iterator[None]:
    """Mark a script run (app.py runs inside it): the warm-up waits while any is going on."""
    global _running, _last_end
    with _quiet:
        _running += 1
    try:
        yield
    finally:
        with _quiet:
            _running -= 1
            _last_end = time.monotonic()
            _quiet.notify_all()


def _give_way(heavy: bool = False) -> None:
    """Wait until no run is going on and none ended in the last AFTER_RUN_SECONDS, for at most
    GIVE_WAY_SECONDS; ``heavy``: none in the last IDLE_SECONDS, for as long as that takes."""
    deadline = float("inf") if heavy else time.monotonic() + GIVE_WAY_SECONDS
    with _quiet:
        while (now := time.monotonic()) < deadline:
            quiet = IDLE_SECONDS if heavy else AFTER_RUN_SECONDS
            if _running == 0 and now - _last_end >= quiet:
                return
            wait = deadline - now if _running else min(deadline - now, quiet - (now - _last_end))
            _quiet.wait(None if wait == float("inf") else wait)


def _import_heavy() -> None:
    for name in HEAVY_MODULES:
        _give_way(heavy=True)
        importlib.import_module(name)
    _give_way(heavy=True)
    from lmcore.corpus.segmentation import tokenize

    tokenize("中文分词", "jieba", False)  # loads jieba's dictionary
    _give_way(heavy=True)
    _first_optimizer_step()


def _first_optimizer_step() -> None:
    """One Adam step on a throw-away tensor, outside the training code (no training hook sees it, no
    random generator is used): torch imports some modules at a process's first step; now, not in a
    student's run."""
    import torch

    weight = torch.zeros(2, requires_grad=True)
    optimizer = torch.optim.Adam([weight])
    (weight * weight).sum().backward()
    torch.nn.utils.clip_grad_norm_([weight], 1.0)
    optimizer.step()


def _import_all() -> None:
    import lmcore

    names = list(WARM_MODULES) + [m.name for m in pkgutil.walk_packages(lmcore.__path__, "lmcore.")
                                  if not m.name.endswith("__main__")]
    for name in names:
        _give_way()
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - a page that needs it reports the problem itself
            pass


def _plotly_validators() -> None:
    """Plotly's validators and the graph_objs modules the figure builders reach (each is imported on
    its first use: in class, that put thousands of objects that live as long as the server among a
    class's short-lived ones, keeping their memory from going back after it)."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    font = dict(size=9)
    fig = make_subplots(rows=1, cols=2)
    for trace in (go.Bar(x=[1], y=[0], orientation="h", text=["a"], customdata=["a"], hovertemplate="%{x}",
                         textfont=font, hoverlabel=dict(font=font), marker=dict(pattern=dict(shape=""))),
                  go.Scatter(x=[1], y=[1], mode="lines+markers+text", text=["a"], line=dict(dash="dot"),
                             marker=dict(size=1, line=dict(width=1)), textfont=font, hoverlabel=dict(font=font)),
                  go.Heatmap(z=[[1.0]], colorscale="Viridis", colorbar=dict(title=dict(text="a", font=font), tickfont=font),
                             texttemplate="%{z}", textfont=font, hoverlabel=dict(font=font)),
                  go.Contour(z=[[1.0, 2.0], [2.0, 3.0]], autocontour=False, contours=dict(start=1, end=3, size=1),
                             colorbar=dict(title=dict(text="a"), tickfont=font)),
                  go.Histogram(x=[1.0])):
        fig.add_trace(trace, row=1, col=1)
    fig.frames = [go.Frame(data=[go.Scatter(x=[1], y=[1])], name="0")]
    fig.update_layout(title=dict(text="a", font=font), font=font, hoverlabel=dict(font=font),
                      xaxis=dict(title=dict(text="a", font=font), type="log", tickvals=[1], ticktext=["a"],
                                 tickfont=font),
                      yaxis=dict(title=dict(text="a", font=font), autorange="reversed", tickfont=font),
                      shapes=[dict(type="line", x0=0, x1=1, y0=0, y1=1, line=dict(width=1))],
                      legend=dict(orientation="h", font=font), barmode="group",
                      annotations=[dict(text="a", x=1, y=1, font=font)],
                      sliders=[dict(steps=[dict(label="0")], currentvalue=dict(prefix="a"))],
                      updatemenus=[dict(type="buttons", buttons=[dict(label="a", method="animate")])])
    fig.add_hline(y=1)
    fig.add_vline(x=1)
    fig.add_vrect(x0=0, x1=1)
    fig.to_json()
    from PIL import Image

    Image.preinit()  # the image plugins st.image's first picture loads


def _sample_defaults(name: str) -> None:
    """A built-in sample at its default settings, its n-gram counts and its shipped recurrent models,
    in the shared stores under the sidebar's key (kept for everyone, never dropped)."""
    from lmcore.samples import default_settings, load_sample
    from server.corpus_keys import corpus_key
    from server.models import shared_counts, shipped_models
    from server.recurrent_models import LSTM, RNN
    from server.sizes import nbytes
    from server.stores import data_store

    settings = default_settings(name)
    corpus = data_store().get_or_build(corpus_key(name, settings), lambda: load_sample(name, settings), nbytes)
    shared_counts(corpus)
    for split in ("valid", "test"):
        corpus.mapped(split)  # memoised on the corpus: made now, not in a student's run
    for config in (RNN, LSTM):
        shipped_models().get(corpus.key, config)


def _english_defaults() -> None:
    _sample_defaults("english")


def _other_samples() -> None:
    """The Chinese and synthetic samples (after jieba is loaded), each when the server is idle: a
    student who switches to one in class finds it built, and what lives as long as the server is
    made before the class, not in the middle of its short-lived objects."""
    for name in SAMPLES_LATER:
        _give_way(heavy=True)
        _sample_defaults(name)


def _freeze_long_lived() -> None:
    from server.gc_freeze import freeze_long_lived
    from server.sessions import connected_sessions

    _give_way(heavy=True)
    if connected_sessions() is not None:  # a real server; a test process (AppTest) keeps its collector as it is
        freeze_long_lived()


def _start_corpus_workers() -> None:
    from server.corpus_worker import start_all_workers

    start_all_workers()


def _warm() -> None:
    for step in (_start_corpus_workers, _import_all, _plotly_validators, _english_defaults, _import_heavy,
                 _other_samples, _freeze_long_lived):
        _give_way()
        try:
            step()
        except Exception:  # noqa: BLE001 - the page that needs it computes it and reports any problem
            pass


def start() -> threading.Thread:
    """Start the warm-up thread (once per process: app.py calls it from a ``cache_resource``)."""
    thread = threading.Thread(target=_warm, name="lmlab-warm-up", daemon=True)
    thread.start()
    return thread
