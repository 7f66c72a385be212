"""lmcore/teaching/projector.py: copying a figure that sessions share is safe from several threads.

Plotly's ``Figure(fig)`` takes each trace's "type" out of ``fig`` for a moment and puts it back; two
threads copying one shared figure at once made one of them build a scatter of a bar's properties
(ValueError: textposition 'outside'), an exception box on a student's slide in a class of 60."""
from __future__ import annotations

import threading
import time

import plotly.graph_objects as go

from lmcore.teaching.projector import projector_figure


class SlowPop(dict):
    """A trace's properties whose "type" stays out a while when Plotly takes it (a thread switch then)."""

    def pop(self, *args):
        value = super().pop(*args)
        time.sleep(0.02)
        return value


def test_two_threads_may_style_one_shared_figure_at_once():
    fig = go.Figure(go.Bar(y=[1, 2], text=["a", "b"], textposition="outside"))
    fig._data[0] = SlowPop(fig._data[0])  # the shared figure's trace, as Plotly hands it to validation
    start, errors, made = threading.Barrier(4), [], []

    def style():
        start.wait(5)
        try:
            made.append(projector_figure(fig))
        except ValueError as error:
            errors.append(error)

    threads = [threading.Thread(target=style) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert errors == [] and len(made) == 4
    assert all(out.data[0].type == "bar" and out.data[0].textposition == "outside" for out in made)
    assert fig.data[0].type == "bar"
