"""Chart geometry for the console's server-rendered SVG (templates/_macros.html draws it: line_chart,
bar_chart). Pure: no I/O.

Python computes coordinates and tick labels; the template only places them, so every label goes
through the template's HTML escaping and no script or chart library is needed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

WIDTH, HEIGHT = 560, 170
LEFT, RIGHT, TOP, BOTTOM = 48, 12, 12, 24  # room for the axis labels


@dataclass(frozen=True)
class Tick:
    at: float  # pixel position along its axis
    label: str


@dataclass(frozen=True)
class Line:
    name: str
    css: str  # class of the stroke (console.css gives each series its colour)
    segments: tuple[str, ...]  # SVG polyline points "x,y x,y", split where a value is missing
    dots: tuple[tuple[float, float], ...]  # lone points (a segment of one sample)


@dataclass(frozen=True)
class LineChart:
    title: str
    lines: tuple[Line, ...]
    x_ticks: tuple[Tick, ...]
    y_ticks: tuple[Tick, ...]
    summary: str  # for screen readers: what the picture says
    width: int = WIDTH
    height: int = HEIGHT

    @property
    def legend(self) -> tuple[tuple[str, str], ...]:
        return tuple((line.name, line.css) for line in self.lines)

    @property
    def note(self) -> str:
        """Shown under the chart: the latest values (a bar chart's bars are in the table beside it)."""
        return self.summary


@dataclass(frozen=True)
class Bar:
    x: float
    y: float
    width: float
    height: float
    css: str
    label: str  # the value, shown on hover and to screen readers


@dataclass(frozen=True)
class BarChart:
    title: str
    bars: tuple[Bar, ...]
    x_ticks: tuple[Tick, ...]  # the group labels
    y_ticks: tuple[Tick, ...]
    legend: tuple[tuple[str, str], ...]  # (name, css)
    summary: str
    width: int = WIDTH
    height: int = HEIGHT
    note: str = ""


def _y(value: float, top: float) -> float:
    return TOP + (HEIGHT - TOP - BOTTOM) * (1 - value / top)


def _nice_top(peak: float) -> float:
    """The smallest 1/2/5 x 10^n at or above the peak (1 when there is nothing to show)."""
    if peak <= 0 or not math.isfinite(peak):
        return 1.0
    base = 10 ** math.floor(math.log10(peak))
    return next(step * base for step in (1, 2, 5, 10) if step * base >= peak)


def _y_ticks(top: float, unit: str) -> tuple[Tick, ...]:
    return tuple(Tick(_y(top * f, top), f"{top * f:g}{unit}") for f in (0, 0.5, 1))


def time_series(title: str, series: Sequence[tuple[str, str, Sequence[tuple[float, float | None]]]], now: float,
                window_s: float = 3600.0, unit: str = "", min_span_s: float = 60.0) -> LineChart:
    """Lines over the time the samples cover, at most ``window_s`` back and at least ``min_span_s`` (a process
    that started a minute ago fills the chart instead of a sliver at its right edge); a None or infinite value
    breaks its line."""
    earliest = min((t for _, _, points in series for t, _ in points), default=now - window_s)
    span = min(window_s, max(min_span_s, now - earliest))
    start = now - span
    plot_w = WIDTH - LEFT - RIGHT
    finite = [v for _, _, points in series for t, v in points if v is not None and math.isfinite(v) and t >= start]
    top = _nice_top(max(finite, default=0.0))
    lines = []
    for name, css, points in series:
        runs: list[list[tuple[float, float]]] = [[]]
        for t, v in points:
            if t < start or v is None or not math.isfinite(v):
                runs.append([])
                continue
            runs[-1].append((LEFT + plot_w * (t - start) / span, _y(v, top)))
        runs = [r for r in runs if r]
        lines.append(Line(name, css, tuple(" ".join(f"{x:.1f},{y:.1f}" for x, y in r) for r in runs if len(r) > 1),
                          tuple((round(r[0][0], 1), round(r[0][1], 1)) for r in runs if len(r) == 1)))
    x_ticks = tuple(Tick(LEFT + plot_w * f, "now" if f == 1 else f"-{_duration(span * (1 - f))}")
                    for f in (0, 0.25, 0.5, 0.75, 1))
    latest = {name: next((v for _, v in reversed(points) if v is not None and math.isfinite(v)), None)
              for name, _, points in series}
    summary = f"{title}, last {_duration(span)}; " + ("no samples yet" if not finite else "latest " + ", ".join(
        f"{name} {'none' if v is None else f'{v:.3g}{unit}'}" for name, v in latest.items()))
    return LineChart(title, tuple(lines), x_ticks, _y_ticks(top, unit), summary)


def _duration(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.0f} min"


def grouped_bars(title: str, groups: Sequence[str], series: Sequence[tuple[str, str, Sequence[float | None]]],
                 top: float = 1.0) -> BarChart:
    """One group of bars per label, one bar per series in each (values between 0 and ``top``)."""
    plot_w = WIDTH - LEFT - RIGHT
    group_w = plot_w / max(1, len(groups))
    bar_w = group_w * 0.8 / max(1, len(series))
    bars = []
    for g, _ in enumerate(groups):
        for s, (name, css, values) in enumerate(series):
            value = values[g]
            if value is None:
                continue
            y = _y(min(max(value, 0.0), top), top)
            bars.append(Bar(round(LEFT + g * group_w + group_w * 0.1 + s * bar_w, 1), round(y, 1),
                            round(bar_w - 1, 1), round(HEIGHT - BOTTOM - y, 1), css, f"{groups[g]}, {name}: {value:.3f}"))
    labels = tuple(Tick(LEFT + (g + 0.5) * group_w, label) for g, label in enumerate(groups))
    summary = f"{title}: " + "; ".join(bar.label for bar in bars)
    return BarChart(title, tuple(bars), labels, _y_ticks(top, ""), tuple((n, c) for n, c, _ in series), summary)
