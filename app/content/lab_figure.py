"""The exercise page's figure of the lab's reference runs: accuracy by length, one line a scheme.

Past the training length a point is the accuracy on the *new* positions only (at or past the
training length): the model is causal, so its earlier positions score exactly as in training and
would hide whether anything extrapolates. The x axis is spaced by length, and a dashed line marks
chance. Drawn from the disk cache only (`python -m app experiments` fills it), so a page never
waits for training; without a complete cache there is simply no figure. Plain SVG.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from app import yamlio
from app.content.lab_seeds import solution_twin, summarise
from graders import cached, schemes_of, seeded_runs

WIDTH, HEIGHT, LEFT, RIGHT, TOP, BOTTOM = 560, 260, 48, 150, 16, 40
COLOURS = {
    "none": "#999999",
    "learned": "#d62728",
    "learned-spare": "#8c564b",
    "sinusoidal": "#ff7f0e",
    "rope": "#1f77b4",
    "alibi": "#2ca02c",
    "reference": "#9467bd",
    "you": "#000000",
}
LABELS = {
    "reference": "model solution",
    "you": "your model",
    "learned-spare": "learned, spare rows",
}


MODEL_SOLUTION = "reference"  # the run of the exercise's own reference.py
TWIN = "+" + MODEL_SOLUTION  # suffix of a scheme whose run the model solution repeats exactly
MEASURES = ("accuracy_by_length", "new_by_length", "trained_by_length", "loss")


def label(scheme: str) -> str:
    """A scheme's name for people: 'rope@offset=6' -> 'rope, offset 6'."""
    if scheme.endswith(TWIN):
        return f"{label(scheme.removesuffix(TWIN))} (the model solution)"
    name, _, tail = scheme.partition("@")
    shown = LABELS.get(name, name)
    return f"{shown}, {tail.replace('=', ' ')}" if tail else shown


def colour(scheme: str) -> str:
    """A scheme's colour; a variant of the task keeps its scheme's colour (drawn dashed)."""
    return COLOURS.get(scheme.removesuffix(TWIN).partition("@")[0], "#000000")


def merge_model_solution(runs: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Draw the model solution once: when it measured exactly as a scheme did, that scheme's line
    is renamed to say so and the duplicate goes (the solution is often one of the schemes)."""
    solution = runs.get(MODEL_SOLUTION)
    if solution is None:
        return runs
    same = [k for k in MEASURES if k in solution]
    twin = next(
        (
            scheme
            for scheme, run in runs.items()
            if scheme != MODEL_SOLUTION and all(run.get(k) == solution[k] for k in same)
        ),
        None,
    )
    if twin is None:
        return runs
    return {
        (scheme + TWIN if scheme == twin else scheme): run
        for scheme, run in runs.items()
        if scheme != MODEL_SOLUTION
    }


def point(run: dict[str, Any], length: str) -> float | None:
    """What the figure plots at `length`: all positions at the training length, else new ones.

    Runs stored before positions were scored apart have only all positions: those are shown.
    """
    if int(length) <= int(run["train_length"]) or "new_by_length" not in run:
        value = run["accuracy_by_length"].get(length)
    else:
        value = run["new_by_length"].get(length)
    return None if value is None else float(value)


def spread(run: dict[str, Any], length: str) -> tuple[float, float] | None:
    """Lowest and highest seed's value of what `point` plots, if the run is over several seeds."""
    past = int(length) > int(run["train_length"]) and "new_by_length" in run
    measure = "new_by_length" if past else "accuracy_by_length"
    got = ((run.get("spread") or {}).get(measure) or {}).get(length)
    return None if got is None or len(run.get("seeds") or []) < 2 else (got[0], got[1])


def seeds_of(runs: dict[str, dict[str, Any]]) -> int:
    """How many seeds the reference runs are over (the fewest any scheme has)."""
    counts = [len(r.get("seeds") or []) for k, r in runs.items() if k != "you"]
    return min(counts, default=1) or 1


def trained(run: dict[str, Any], length: str) -> float | None:
    """Accuracy on the positions below the training length, if the run measured it."""
    value = (run.get("trained_by_length") or {}).get(length)
    return None if value is None else float(value)


def lab_chance(folder: Path) -> float | None:
    """1 / vocabulary of the exercise's task, or None if it cannot be read."""
    try:
        meta = yamlio.safe_load((folder / "exercise.yaml").read_text(encoding="utf-8"))
        return 1.0 / float(meta["experiment"].get("vocab", 10))
    except (OSError, KeyError, TypeError, ValueError, AttributeError):
        return None


def cached_runs(folder: Path, cache_dir: Path) -> dict[str, dict[str, Any]] | None:
    """Every reference scheme's cached runs over its seeds, summarised; None if any is missing.

    A model solution whose first-seed run repeats a scheme's needs no other seeds of its own
    (app.content.lab_seeds.solution_twin): it is drawn as that scheme's line.
    """
    names = {scheme: seeded_runs(folder, scheme) for scheme in schemes_of(folder)}
    seeds: dict[str, list[dict[str, Any]]] = {}
    for scheme, runs in names.items():
        for name in runs if scheme != MODEL_SOLUTION else runs[:1]:
            found = cached(folder, name, cache_dir)
            if found is None or "accuracy_by_length" not in found:
                return None
            seeds.setdefault(scheme, []).append(found)
    if MODEL_SOLUTION in names:
        twin = solution_twin({scheme: found[0] for scheme, found in seeds.items()})
        if twin is not None:
            seeds[MODEL_SOLUTION] = seeds[twin]
        else:
            for name in names[MODEL_SOLUTION][1:]:
                found = cached(folder, name, cache_dir)
                if found is None or "accuracy_by_length" not in found:
                    return None
                seeds[MODEL_SOLUTION].append(found)
    return merge_model_solution({scheme: summarise(runs) for scheme, runs in seeds.items()})


def _x_axis(lengths: list[str], train: int, inner_w: float, bottom: float) -> tuple[Any, str]:
    """x(length) spaced by length from the training length to the longest, and its labels."""
    low, high = min(int(n) for n in lengths), max(int(n) for n in lengths)

    def x(length: str) -> float:
        return LEFT + inner_w * (int(length) - low) / max(high - low, 1)

    labels = "".join(
        f'<text x="{x(n):.1f}" y="{bottom + 16}" text-anchor="middle" font-size="11">'
        f"{n} ({int(n) / train:g}x)</text>"
        for n in lengths
    )
    return x, labels


def accuracy_svg(runs: dict[str, dict[str, Any]], chance: float | None = None) -> str:
    """An SVG line chart: x = sequence length (to scale), y = accuracy 0..1 on new positions."""
    first = next(iter(runs.values()))
    lengths = list(first["accuracy_by_length"])
    train = int(first["train_length"])
    inner_w, inner_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def y(value: float) -> float:
        return TOP + inner_h * (1 - value)

    x, x_labels = _x_axis(lengths, train, inner_w, y(0))
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        'class="lab-figure" aria-label="Accuracy by sequence length for each position scheme, '
        f'on the positions past the {train} it was trained on">',
        f'<line x1="{LEFT}" y1="{y(0)}" x2="{LEFT + inner_w}" y2="{y(0)}" stroke="#333"/>',
        f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{y(0)}" stroke="#333"/>',
        x_labels,
    ]
    for tick in (0.0, 0.5, 1.0):
        parts.append(
            f'<text x="{LEFT - 6}" y="{y(tick) + 4}" text-anchor="end" font-size="11">'
            f"{tick:g}</text>"
        )
    if chance is not None:
        parts.append(
            f'<line x1="{LEFT}" y1="{y(chance):.1f}" x2="{LEFT + inner_w}" y2="{y(chance):.1f}" '
            'stroke="#555" stroke-dasharray="2 3" class="chance"/>'
            f'<text x="{LEFT + inner_w - 2}" y="{y(chance) - 4:.1f}" text-anchor="end" '
            f'font-size="10" fill="#555">chance ({round(100 * chance)}%)</text>'
        )
    parts.append(
        f'<text x="{LEFT + inner_w / 2}" y="{HEIGHT - 4}" text-anchor="middle" font-size="11">'
        f"sequence length; past {train}: accuracy on the new positions only</text>"
    )
    seeds = seeds_of(runs)
    if seeds > 1:
        parts.append(
            f'<text x="{LEFT + inner_w - 2}" y="{TOP + 8}" text-anchor="end" font-size="10" '
            f'fill="#555">mean of {seeds} seeds; bars: lowest to highest seed</text>'
        )
    for row, (scheme, run) in enumerate(runs.items()):
        ink = colour(scheme)
        dash = ' stroke-dasharray="6 3"' if "@" in scheme else ""
        values = [point(run, n) for n in lengths]
        points = [(x(n), y(v)) for n, v in zip(lengths, values, strict=True) if v is not None]
        if len(points) > 1:
            path = " ".join(f"{px:.1f},{py:.1f}" for px, py in points)
            parts.append(
                f'<polyline points="{path}" fill="none" stroke="{ink}" stroke-width="2"{dash}/>'
            )
        for px, py in points:
            parts.append(f'<circle cx="{px:.1f}" cy="{py:.1f}" r="3" fill="{ink}"/>')
        nudge = 2.0 * (row - (len(runs) - 1) / 2)  # side by side, so bars do not hide each other
        for n in lengths:
            bar = spread(run, n)
            if bar is not None:
                parts.append(error_bar(x(n) + nudge, y(bar[0]), y(bar[1]), ink))
        for n, v in zip(lengths, values, strict=True):
            if v is None:  # refused: a cross on the axis (its new positions count as 0)
                parts.append(
                    f'<text x="{x(n):.1f}" y="{y(0) - 4}" text-anchor="middle" font-size="12" '
                    f'fill="{ink}">×</text>'
                )
        name = html.escape(label(scheme))
        refused = " (× refused)" if None in values else ""
        ly = TOP + 14 * row + 8
        parts.append(
            f'<line x1="{WIDTH - RIGHT + 10}" y1="{ly}" x2="{WIDTH - RIGHT + 24}" y2="{ly}" '
            f'stroke="{ink}" stroke-width="2"{dash}/>'
            f'<text x="{WIDTH - RIGHT + 28}" y="{ly + 4}" font-size="11">{name}{refused}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def error_bar(px: float, low: float, high: float, ink: str) -> str:
    """A vertical bar from y=low to y=high with short caps (the spread over the seeds)."""
    return (
        f'<path d="M{px - 3:.1f},{low:.1f}H{px + 3:.1f}M{px:.1f},{low:.1f}V{high:.1f}'
        f'M{px - 3:.1f},{high:.1f}H{px + 3:.1f}" stroke="{ink}" stroke-width="1" '
        'fill="none" class="error-bar"/>'
    )


def figure_for(folder: Path, cache_dir: Path) -> str | None:
    """The page's figure, or None when the exercise is no experiment or runs are not cached."""
    try:
        runs = cached_runs(folder, cache_dir)
    except (OSError, KeyError, ValueError, TypeError):
        return None
    return accuracy_svg(runs, lab_chance(folder)) if runs else None


def cell(run: dict[str, Any], length: str) -> str:
    """A table cell: at the training length the accuracy; past it, new positions (trained ones)."""
    if "nan_at_step" in run:
        return "NaN"
    value = point(run, length)
    if value is None:
        return "refused"
    shown = f"{round(100 * value)}%"
    bar = spread(run, length)
    if bar is not None:
        shown += f" [{round(100 * bar[0])}–{round(100 * bar[1])}%]"
    seen = trained(run, length)
    if int(length) <= int(run["train_length"]) or seen is None:
        return shown
    return f"{shown} ({round(100 * seen)}%)"


def accuracy_table(runs: dict[str, dict[str, Any]], chance: float | None = None) -> str:
    """The chart's numbers as a table, so the lines are not only colours on a picture."""
    first = next(iter(runs.values()))
    lengths, train = list(first["accuracy_by_length"]), int(first["train_length"])
    head = "".join(f'<th scope="col">{html.escape(str(n))}</th>' for n in lengths)
    rows = []
    for scheme, run in runs.items():
        cells = "".join(f'<td class="num">{cell(run, n)}</td>' for n in lengths)
        rows.append(f'<tr><th scope="row">{html.escape(label(scheme))}</th>{cells}</tr>')
    guess = "" if chance is None else f" Guessing scores {round(100 * chance)}%."
    seeds = seeds_of(runs)
    if seeds > 1:
        guess = f" Mean of {seeds} seeds [lowest–highest seed].{guess}"
    return (
        '<details class="lab-numbers"><summary>The same runs as a table</summary>'
        '<div class="table-scroll"><table><caption>Accuracy at each sequence length: past '
        f"{train}, on the new positions (in brackets, on the positions it was trained on)."
        f"{guess}</caption>"
        f'<thead><tr><th scope="col">Scheme</th>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div></details>"
    )


def table_for(folder: Path, cache_dir: Path) -> str | None:
    """The figure's text equivalent, or None when there is no figure."""
    try:
        runs = cached_runs(folder, cache_dir)
        return accuracy_table(runs, lab_chance(folder)) if runs else None
    except (OSError, KeyError, ValueError, TypeError):
        return None
