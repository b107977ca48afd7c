"""The lab's reference runs by position: accuracy in buckets of positions, mean over the seeds with
error bars from the lowest to the highest seed, and the same numbers as a table.

Where a length-by-length mean mixes familiar and new positions, this shows where along the
sequence a scheme stops working. The model is causal, so a position is answered alike in every
sequence that reaches it; each seed's share pools those sequences (graders/lab/lab_scoring.py).
Plain SVG drawn from the disk cache, like graders' other lab figures.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from app import yamlio
from app.content.lab_figure import cached_runs, colour, error_bar, lab_chance, label
from app.content.lab_seeds import by_bucket

WIDTH, HEIGHT, LEFT, RIGHT, TOP, BOTTOM = 560, 260, 48, 150, 16, 40
Bucket = tuple[int, int, tuple[float, float, float] | None]


def _offset(run: dict[str, Any], default: int) -> int:
    """The task's offset for this run: a variant scheme ('rope@offset=6') records its own."""
    seeds = run.get("per_seed") or [run]
    return int(seeds[0].get("offset", default))


def _longest(runs: dict[str, dict[str, Any]]) -> int:
    return max(int(n) for r in runs.values() for n in r.get("accuracy_by_length") or {})


def position_buckets(runs: dict[str, dict[str, Any]], offset: int) -> dict[str, list[Bucket]]:
    """Each scheme's buckets (first, last, (mean, lowest seed, highest seed) or None)."""
    longest = _longest(runs)
    return {
        scheme: by_bucket(run.get("per_seed") or [run], longest, _offset(run, offset))
        for scheme, run in runs.items()
    }


def position_svg(runs: dict[str, dict[str, Any]], offset: int, chance: float | None) -> str:
    """An SVG chart: x = position (to scale), y = share right in each bucket of positions."""
    first = next(iter(runs.values()))
    train, longest = int(first["train_length"]), _longest(runs)
    seeds = min(len(r.get("seeds") or [0]) for r in runs.values())
    inner_w, inner_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(position: float) -> float:
        return LEFT + inner_w * position / max(longest - 1, 1)

    def y(value: float) -> float:
        return TOP + inner_h * (1 - value)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        'class="lab-figure lab-positions" aria-label="Accuracy by position for each position '
        f"scheme, mean of {seats(seeds)} with bars from the lowest to the highest seed; "
        f'trained on positions 0 to {train - 1}">',
        f'<line x1="{LEFT}" y1="{y(0)}" x2="{LEFT + inner_w}" y2="{y(0)}" stroke="#333"/>',
        f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{y(0)}" stroke="#333"/>',
        f'<line x1="{x(train - 0.5):.1f}" y1="{TOP}" x2="{x(train - 0.5):.1f}" y2="{y(0)}" '
        'stroke="#999" stroke-dasharray="4 3" class="trained-edge"/>',
        f'<text x="{x(train - 0.5) + 3:.1f}" y="{y(0) - 4:.1f}" font-size="10" fill="#555">'
        f"new positions from {train}</text>",
    ]
    for tick in range(0, longest, 8 if longest <= 64 else 16):
        parts.append(
            f'<text x="{x(tick):.1f}" y="{y(0) + 16}" text-anchor="middle" font-size="11">'
            f"{tick}</text>"
        )
    for share in (0.0, 0.5, 1.0):
        parts.append(
            f'<text x="{LEFT - 6}" y="{y(share) + 4}" text-anchor="end" font-size="11">'
            f"{share:g}</text>"
        )
    if chance is not None:
        parts.append(
            f'<line x1="{LEFT}" y1="{y(chance):.1f}" x2="{LEFT + inner_w}" y2="{y(chance):.1f}" '
            'stroke="#555" stroke-dasharray="2 3" class="chance"/>'
        )
    parts.append(
        f'<text x="{LEFT + inner_w / 2}" y="{HEIGHT - 4}" text-anchor="middle" font-size="11">'
        f"position; mean of {seats(seeds)}, bars lowest to highest seed</text>"
    )
    buckets = position_buckets(runs, offset)
    for row, (scheme, rows) in enumerate(buckets.items()):
        ink = colour(scheme)
        dash = ' stroke-dasharray="6 3"' if "@" in scheme else ""
        nudge = 1.5 * (row - (len(buckets) - 1) / 2)
        points = [(x((a + b) / 2) + nudge, got) for a, b, got in rows if got is not None]
        if len(points) > 1:
            path = " ".join(f"{px:.1f},{y(got[0]):.1f}" for px, got in points)
            parts.append(
                f'<polyline points="{path}" fill="none" stroke="{ink}" stroke-width="1.5"{dash}/>'
            )
        for px, got in points:
            parts.append(f'<circle cx="{px:.1f}" cy="{y(got[0]):.1f}" r="2" fill="{ink}"/>')
            if seeds > 1:
                parts.append(error_bar(px, y(got[1]), y(got[2]), ink))
        stops = (
            " (stops at its table)" if any(got is None for a, _, got in rows if a >= train) else ""
        )
        ly = TOP + 14 * row + 8
        parts.append(
            f'<line x1="{WIDTH - RIGHT + 10}" y1="{ly}" x2="{WIDTH - RIGHT + 24}" y2="{ly}" '
            f'stroke="{ink}" stroke-width="2"{dash}/>'
            f'<text x="{WIDTH - RIGHT + 28}" y="{ly + 4}" font-size="11">'
            f"{html.escape(label(scheme))}{stops}</text>"
        )
    parts.append("</svg>")
    return "".join(parts)


def seats(seeds: int) -> str:
    """'3 seeds' / '1 seed'."""
    return f"{seeds} seed{'s' if seeds != 1 else ''}"


def position_table(runs: dict[str, dict[str, Any]], offset: int) -> str:
    """The by-position chart's numbers, so the bars are not only marks on a picture."""
    buckets = position_buckets(runs, offset)
    heads = next(iter(buckets.values()))
    head = "".join(f'<th scope="col">{a}–{b}</th>' for a, b, _ in heads)
    rows = []
    for scheme, got in buckets.items():
        cells = "".join(
            '<td class="num">–</td>'
            if v is None
            else f'<td class="num">{round(100 * v[0])}% [{round(100 * v[1])}–{round(100 * v[2])}]'
            "</td>"
            for _, _, v in got
        )
        rows.append(f'<tr><th scope="row">{html.escape(label(scheme))}</th>{cells}</tr>')
    seeds = min(len(r.get("seeds") or [0]) for r in runs.values())
    return (
        '<details class="lab-numbers"><summary>Accuracy by position as a table</summary>'
        '<div class="table-scroll"><table><caption>Share right in each bucket of positions: '
        f"mean of {seats(seeds)} [lowest–highest seed]; – where the model has no answer there "
        "(a learned table refuses past its rows, a task's first positions have nothing to copy)."
        f'</caption><thead><tr><th scope="col">Scheme</th>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div></details>"
    )


def lab_offset(folder: Path) -> int:
    """The task's offset (the token this many places back), 3 if it cannot be read."""
    try:
        meta = yamlio.safe_load((folder / "exercise.yaml").read_text(encoding="utf-8"))
        return int(meta["experiment"].get("offset", 3))
    except (OSError, KeyError, TypeError, ValueError, AttributeError):
        return 3


def positions_for(folder: Path, cache_dir: Path) -> tuple[str, str] | None:
    """(figure, table) by position from the cache, or None when the runs are not all cached."""
    try:
        runs = cached_runs(folder, cache_dir)
        if not runs:
            return None
        offset = lab_offset(folder)
        return position_svg(runs, offset, lab_chance(folder)), position_table(runs, offset)
    except (OSError, KeyError, ValueError, TypeError):
        return None
