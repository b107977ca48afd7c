"""The exercise page's figure of the lab's reference runs: accuracy by length, one line a scheme.

Drawn from the disk cache only (`python -m app experiments` fills it), so a page never waits for
training; without a complete cache there is simply no figure. Plain SVG, no plotting library.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from graders.experiment_reference import cached, schemes_of

WIDTH, HEIGHT, LEFT, RIGHT, TOP, BOTTOM = 520, 260, 48, 110, 16, 40
COLOURS = {
    "none": "#999999",
    "learned": "#d62728",
    "sinusoidal": "#ff7f0e",
    "rope": "#1f77b4",
    "alibi": "#2ca02c",
    "reference": "#9467bd",
    "you": "#000000",
}
LABELS = {"reference": "model solution", "you": "your model"}


def cached_runs(folder: Path, cache_dir: Path) -> dict[str, dict[str, Any]] | None:
    """Every reference scheme's cached result, or None if any is missing."""
    runs: dict[str, dict[str, Any]] = {}
    for scheme in schemes_of(folder):
        found = cached(folder, scheme, cache_dir)
        if found is None or "accuracy_by_length" not in found:
            return None
        runs[scheme] = found
    return runs


def accuracy_svg(runs: dict[str, dict[str, Any]]) -> str:
    """An SVG line chart: x = sequence length (evenly spaced), y = accuracy 0..1."""
    first = next(iter(runs.values()))
    lengths = list(first["accuracy_by_length"])
    train = int(first["train_length"])
    inner_w, inner_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(i: int) -> float:
        return LEFT + inner_w * i / max(len(lengths) - 1, 1)

    def y(value: float) -> float:
        return TOP + inner_h * (1 - value)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        'class="lab-figure" aria-label="Accuracy by sequence length for each position scheme">',
        f'<line x1="{LEFT}" y1="{y(0)}" x2="{LEFT + inner_w}" y2="{y(0)}" stroke="#333"/>',
        f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{y(0)}" stroke="#333"/>',
    ]
    for tick in (0.0, 0.5, 1.0):
        parts.append(
            f'<text x="{LEFT - 6}" y="{y(tick) + 4}" text-anchor="end" font-size="11">'
            f"{tick:g}</text>"
        )
    for i, length in enumerate(lengths):
        label = f"{length} ({int(length) / train:g}x)"
        parts.append(
            f'<text x="{x(i)}" y="{y(0) + 16}" text-anchor="middle" font-size="11">{label}</text>'
        )
    parts.append(
        f'<text x="{LEFT + inner_w / 2}" y="{HEIGHT - 4}" text-anchor="middle" font-size="11">'
        "sequence length (trained on the first)</text>"
    )
    for row, (scheme, run) in enumerate(runs.items()):
        colour = COLOURS.get(scheme, "#000000")
        values = [run["accuracy_by_length"].get(n) for n in lengths]
        points = [(x(i), y(v)) for i, v in enumerate(values) if v is not None]
        if len(points) > 1:
            path = " ".join(f"{px:.1f},{py:.1f}" for px, py in points)
            parts.append(
                f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>'
            )
        for px, py in points:
            parts.append(f'<circle cx="{px:.1f}" cy="{py:.1f}" r="3" fill="{colour}"/>')
        for i, v in enumerate(values):
            if v is None:  # refused: a cross on the axis
                parts.append(
                    f'<text x="{x(i)}" y="{y(0) - 4}" text-anchor="middle" font-size="12" '
                    f'fill="{colour}">×</text>'
                )
        name = html.escape(LABELS.get(scheme, scheme))
        refused = " (× refused)" if None in values else ""
        ly = TOP + 14 * row + 8
        parts.append(
            f'<line x1="{WIDTH - RIGHT + 10}" y1="{ly}" x2="{WIDTH - RIGHT + 24}" y2="{ly}" '
            f'stroke="{colour}" stroke-width="2"/>'
            f'<text x="{WIDTH - RIGHT + 28}" y="{ly + 4}" font-size="11">{name}{refused}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def figure_for(folder: Path, cache_dir: Path) -> str | None:
    """The page's figure, or None when the exercise is no experiment or runs are not cached."""
    try:
        runs = cached_runs(folder, cache_dir)
    except (OSError, KeyError, ValueError, TypeError):
        return None
    return accuracy_svg(runs) if runs else None


def accuracy_table(runs: dict[str, dict[str, Any]]) -> str:
    """The chart's numbers as a table, so the lines are not only colours on a picture."""
    lengths = list(next(iter(runs.values()))["accuracy_by_length"])
    head = "".join(f'<th scope="col">{html.escape(str(n))}</th>' for n in lengths)
    rows = []
    for scheme, run in runs.items():
        name = html.escape(LABELS.get(scheme, scheme))
        cells = []
        for n in lengths:
            value = run["accuracy_by_length"].get(n)
            shown = "refused" if value is None else f"{value:.2f}"
            cells.append(f'<td class="num">{shown}</td>')
        rows.append(f'<tr><th scope="row">{name}</th>{"".join(cells)}</tr>')
    return (
        '<details class="lab-numbers"><summary>The same runs as a table</summary>'
        '<div class="table-scroll"><table><caption>Accuracy at each sequence length</caption>'
        f'<thead><tr><th scope="col">Scheme</th>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div></details>"
    )


def table_for(folder: Path, cache_dir: Path) -> str | None:
    """The figure's text equivalent, or None when there is no figure."""
    try:
        runs = cached_runs(folder, cache_dir)
        return accuracy_table(runs) if runs else None
    except (OSError, KeyError, ValueError, TypeError):
        return None
