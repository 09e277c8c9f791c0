"""The console's chart geometry (app/console/charts.py): pure, so checked by numbers."""

from __future__ import annotations

import math

from app.console import charts


def test_a_time_series_spans_its_samples_and_breaks_at_missing_values():
    now = 10_000.0
    points = [(now - 600, 2.0), (now - 400, None), (now - 300, 4.0), (now - 200, 3.0), (now - 100, math.inf)]
    chart = charts.time_series("Queue depth", [("pending", "series-1", points)], now)
    (line,) = chart.lines
    assert len(line.segments) == 1 and len(line.dots) == 1  # 4 -> 3 is a line; the lone 2 a dot
    assert line.dots[0][0] == charts.LEFT  # the oldest sample starts the chart: 10 minutes, not an hour
    assert [t.label for t in chart.x_ticks] == ["-10 min", "-8 min", "-5 min", "-2 min", "now"]
    assert [t.label for t in chart.y_ticks] == ["0", "2.5", "5"]  # 4 rounds up to a 1-2-5 step
    assert chart.summary == "Queue depth, last 10 min; latest pending 3"  # the last finite value


def test_a_time_series_keeps_one_hour_at_most_and_a_minute_at_least():
    now = 100_000.0
    old = charts.time_series("t", [("a", "s", [(now - 7200, 1.0), (now - 10, 2.0)])], now)
    assert old.x_ticks[0].label == "-60 min" and not old.lines[0].segments  # the two-hour-old point is out
    young = charts.time_series("t", [("a", "s", [(now - 5, 1.0), (now - 1, 2.0)])], now)
    assert young.x_ticks[0].label == "-60 s" and young.lines[0].segments
    empty = charts.time_series("Search latency", [("mean", "s", [])], now, unit=" ms")
    assert empty.summary.endswith("no samples yet") and empty.lines[0].segments == ()


def test_grouped_bars_scale_to_the_top_and_skip_missing_values():
    chart = charts.grouped_bars("q", ["vector", "hybrid"], [("nDCG@10", "series-1", [0.5, 1.0]),
                                                            ("MRR@10", "series-2", [None, 0.25])])
    assert [b.label for b in chart.bars] == ["vector, nDCG@10: 0.500", "hybrid, nDCG@10: 1.000",
                                             "hybrid, MRR@10: 0.250"]
    full, half = chart.bars[1], chart.bars[0]
    assert math.isclose(full.height, 2 * half.height, abs_tol=0.2) and full.y == charts.TOP
    assert [g.label for g in chart.x_ticks] == ["vector", "hybrid"] and chart.legend[1] == ("MRR@10", "series-2")
