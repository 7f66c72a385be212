"""bench/dom_timeline.py groups DOM changes into bursts by time gaps and counts them by element kind."""
from __future__ import annotations

import sys

from tests.browser_server import ROOT

sys.path.insert(0, str(ROOT / "bench"))
from dom_timeline import bursts  # noqa: E402


def test_changes_at_most_the_gap_apart_are_one_burst_counted_by_kind():
    changes = [[12.0, "stPlotlyChart"], [0.0, "stSlider"], [2.5, "stSlider"], [10.0, None], [14.9, "stPlotlyChart"],
               [30.0, "stApp"]]
    assert bursts(changes, gap_ms=3.0) == [(0.0, 2.5, {"stSlider": 2}),
                                           (10.0, 14.9, {"None": 1, "stPlotlyChart": 2}),
                                           (30.0, 30.0, {"stApp": 1})]
