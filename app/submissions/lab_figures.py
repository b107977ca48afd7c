"""An experiment's report as pictures: accuracy and loss beside the reference runs, and what the
model learned about position. Plain SVG drawn here from stored numbers (no plotting library);
the only text in them is ours, escaped.
"""

from __future__ import annotations

import html
import math
from pathlib import Path
from typing import Any

from app.content.lab_figure import accuracy_svg, cached_runs, colour, lab_chance, label

YOU = "you"
W, H, LEFT, RIGHT, TOP, BOTTOM = 520, 260, 48, 110, 16, 40
FIGURES = ("accuracy", "loss", "positions")


def _reference_runs(folder: Path, cache_dir: Path) -> dict[str, dict[str, Any]]:
    try:
        return cached_runs(folder, cache_dir) or {}
    except (OSError, KeyError, ValueError, TypeError):
        return {}


def _axes(inner_w: float, inner_h: float) -> str:
    bottom = TOP + inner_h
    return (
        f'<line x1="{LEFT}" y1="{bottom}" x2="{LEFT + inner_w}" y2="{bottom}" stroke="#333"/>'
        f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{bottom}" stroke="#333"/>'
    )


def _y_ticks(high: str, low: str, inner_h: float) -> str:
    return (
        f'<text x="{LEFT - 6}" y="{TOP + 4}" text-anchor="end" font-size="11">{high}</text>'
        f'<text x="{LEFT - 6}" y="{TOP + inner_h + 4}" text-anchor="end" font-size="11">'
        f"{low}</text>"
    )


def _svg_open(label: str) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {H}" role="img" '
        f'aria-label="{html.escape(label)}"><title>{html.escape(label)}</title>'
        '<rect width="100%" height="100%" fill="#ffffff"/>'
    )


def accuracy_figure(metrics: dict[str, Any], folder: Path, cache_dir: Path) -> str:
    """Your accuracy by length, drawn over the reference runs (same axes as the exercise page)."""
    runs = _reference_runs(folder, cache_dir)
    keys = ("train_length", "accuracy_by_length", "trained_by_length", "new_by_length")
    mine = {k: metrics[k] for k in keys if k in metrics}
    chance = metrics.get("chance")
    return accuracy_svg({**runs, YOU: mine}, chance if chance is not None else lab_chance(folder))


def _legend(row: int, colour: str, name: str, width: int = 2) -> str:
    ly = TOP + 14 * row + 8
    return (
        f'<line x1="{W - RIGHT + 10}" y1="{ly}" x2="{W - RIGHT + 24}" y2="{ly}" '
        f'stroke="{colour}" stroke-width="{width}"/>'
        f'<text x="{W - RIGHT + 28}" y="{ly + 4}" font-size="11">{html.escape(name)}</text>'
    )


def loss_figure(metrics: dict[str, Any], folder: Path, cache_dir: Path) -> str:
    """Training loss by step: yours in black, the reference schemes in their colours."""
    every = int(metrics.get("loss_every", 10)) or 10
    curves = {s: r["loss"] for s, r in _reference_runs(folder, cache_dir).items() if r.get("loss")}
    curves[YOU] = list(metrics.get("loss", []))
    finite = [
        v for c in curves.values() for v in c if isinstance(v, (int, float)) and math.isfinite(v)
    ]
    top = max(finite, default=1.0) or 1.0
    steps = max((len(c) for c in curves.values()), default=1) * every
    inner_w, inner_h = W - LEFT - RIGHT, H - TOP - BOTTOM
    first, last = (curves[YOU][0], curves[YOU][-1]) if curves[YOU] else (math.nan, math.nan)
    parts = [
        _svg_open(f"Training loss by step: yours went from {first:.3f} to {last:.3f}"),
        _axes(inner_w, inner_h),
        _y_ticks(f"{top:.2g}", "0", inner_h),
        f'<text x="{LEFT + inner_w / 2}" y="{H - 4}" text-anchor="middle" font-size="11">'
        f"training step (0 to {steps})</text>",
    ]
    for row, (scheme, losses) in enumerate(curves.items()):
        ink = "#000000" if scheme == YOU else colour(scheme)
        points = [
            f"{LEFT + inner_w * (i + 1) * every / steps:.1f},{TOP + inner_h * (1 - v / top):.1f}"
            for i, v in enumerate(losses)
            if isinstance(v, (int, float)) and math.isfinite(v)
        ]
        width = 3 if scheme == YOU else 1.5
        if len(points) > 1:
            parts.append(
                f'<polyline points="{" ".join(points)}" fill="none" stroke="{ink}" '
                f'stroke-width="{width}"/>'
            )
        parts.append(
            _legend(
                row,
                ink,
                "your model" if scheme == YOU else label(scheme),
                int(width),
            )
        )
    parts.append("</svg>")
    return "".join(parts)


def _diverging(value: float) -> str:
    """-1 blue, 0 white, +1 red."""
    v = max(-1.0, min(1.0, value))
    fade = round(255 * (1 - abs(v)))
    return f"rgb(255,{fade},{fade})" if v >= 0 else f"rgb({fade},{fade},255)"


def _similarity(values: list[list[float]]) -> str:
    n = len(values)
    size = min(W - LEFT - RIGHT, H - TOP - BOTTOM)
    cell = size / n
    near = sum(values[i][i + 1] for i in range(n - 1)) / max(n - 1, 1)
    far = values[0][n - 1]
    label = (
        f"Cosine similarity between the position vectors of positions 0 to {n - 1}: "
        f"neighbours {near:.2f} on average, first and last {far:.2f}"
    )
    parts = [_svg_open(label)]
    for i, row in enumerate(values):
        for j, value in enumerate(row):
            parts.append(
                f'<rect x="{LEFT + j * cell:.1f}" y="{TOP + i * cell:.1f}" width="{cell:.1f}" '
                f'height="{cell:.1f}" fill="{_diverging(value)}"/>'
            )
    parts.append(
        f'<text x="{LEFT + size / 2}" y="{TOP + size + 16}" text-anchor="middle" font-size="11">'
        f"position 0 to {n - 1} (rows: the same)</text>"
    )
    key_x = LEFT + size + 30
    for k, (value, word) in enumerate(
        ((1.0, "same direction (1)"), (0.0, "unrelated (0)"), (-1.0, "opposite (-1)"))
    ):
        y = TOP + 20 * k
        fill = _diverging(value)
        parts.append(
            f'<rect x="{key_x}" y="{y}" width="14" height="14" fill="{fill}" stroke="#333"/>'
            f'<text x="{key_x + 20}" y="{y + 11}" font-size="11">{word}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def _by_offset(values: list[list[float]]) -> str:
    n = len(values[0])
    flat = [v for row in values for v in row]
    low, high = min(flat), max(flat)
    span = (high - low) or 1.0
    inner_w, inner_h = W - LEFT - RIGHT, H - TOP - BOTTOM
    label = (
        f"Attention score your module gives one query and key pair by distance, 0 to {n - 1} "
        f"places apart, per head: from {values[0][0]:.2f} at distance 0 to {values[0][-1]:.2f} "
        f"at {n - 1} in head 1"
    )
    parts = [
        _svg_open(label),
        _axes(inner_w, inner_h),
        _y_ticks(f"{high:.2g}", f"{low:.2g}", inner_h),
        f'<text x="{LEFT + inner_w / 2}" y="{H - 4}" text-anchor="middle" font-size="11">'
        f"distance between query and key (0 to {n - 1})</text>",
    ]
    palette = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd")
    for head, row in enumerate(values):
        ink = palette[head % len(palette)]
        points = " ".join(
            f"{LEFT + inner_w * i / max(n - 1, 1):.1f},{TOP + inner_h * (1 - (v - low) / span):.1f}"
            for i, v in enumerate(row)
        )
        dash = ' stroke-dasharray="5 3"' if head % 2 else ""
        parts.append(
            f'<polyline points="{points}" fill="none" stroke="{ink}" stroke-width="2"{dash}/>'
        )
        parts.append(_legend(head, ink, f"head {head + 1}"))
    parts.append("</svg>")
    return "".join(parts)


def positions_figure(metrics: dict[str, Any]) -> str | None:
    """What the trained module does with position, or None when the run sent no picture."""
    picture = metrics.get("position_picture")
    if not isinstance(picture, dict) or not picture.get("values"):
        return None
    values = picture["values"]
    return _similarity(values) if picture.get("kind") == "similarity" else _by_offset(values)


def figure(name: str, metrics: dict[str, Any], folder: Path, cache_dir: Path) -> str | None:
    """One of FIGURES for a finished experiment's metrics, or None if it has nothing to draw."""
    if "accuracy_by_length" not in metrics:
        return None
    if name == "accuracy":
        return accuracy_figure(metrics, folder, cache_dir)
    if name == "loss":
        return loss_figure(metrics, folder, cache_dir)
    return positions_figure(metrics)
