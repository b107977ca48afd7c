"""A small bar chart drawn as SVG on the server: no script, colours come from the stylesheet."""

from __future__ import annotations

import datetime as dt
from html import escape

WIDTH, HEIGHT = 640, 220
LEFT, RIGHT, TOP, BOTTOM = 40, 10, 10, 40


def _ticks(peak: int) -> list[int]:
    """Up to five round values from 0 to at least `peak` for the vertical axis."""
    step = 1
    while peak / step > 4:
        step = step * 5 // 2 if str(step).startswith("2") else step * 2
    return list(range(0, peak + step, step))


def submissions_chart(timeline: list[tuple[dt.date, int, int]], bucket: str) -> str:
    """Bars of submissions per day or week, the solving ones drawn in a second colour."""
    if not timeline:
        return ""
    ticks = _ticks(max(total for _, total, _ in timeline))
    top = ticks[-1] or 1
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    slot = plot_w / len(timeline)
    bar = max(1.0, slot * 0.8)
    parts = [
        f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-labelledby="chart-title" xmlns="http://www.w3.org/2000/svg">',
        f'<title id="chart-title">Submissions per {escape(bucket)}; solving ones darker</title>',
    ]
    for value in ticks:
        y = TOP + plot_h - plot_h * value / top
        parts.append(
            f'<line class="chart-grid" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y:.1f}" y2="{y:.1f}"/>'
            f'<text class="chart-label" x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end">'
            f"{value}</text>"
        )
    every = max(1, len(timeline) // 8)
    for index, (start, total, solved) in enumerate(timeline):
        x = LEFT + index * slot + (slot - bar) / 2
        height = plot_h * total / top
        solved_height = plot_h * solved / top
        label = escape(f"{start.isoformat()}: {total} submissions, {solved} solving")
        parts.append(
            f"<g><title>{label}</title>"
            f'<rect class="chart-bar" x="{x:.1f}" y="{TOP + plot_h - height:.1f}" '
            f'width="{bar:.1f}" height="{height:.1f}"/>'
            f'<rect class="chart-bar-ok" x="{x:.1f}" y="{TOP + plot_h - solved_height:.1f}" '
            f'width="{bar:.1f}" height="{solved_height:.1f}"/></g>'
        )
        if index % every == 0:
            parts.append(
                f'<text class="chart-label" x="{x + bar / 2:.1f}" y="{HEIGHT - BOTTOM + 16}" '
                f'text-anchor="middle">{escape(start.strftime("%b %d"))}</text>'
            )
    parts.append("</svg>")
    return "".join(parts)
