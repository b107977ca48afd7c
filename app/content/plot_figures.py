"""Lesson plot data and how to draw them; NumPy only, so pages never load torch."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

if TYPE_CHECKING:  # matplotlib takes half a second to import: only the drawing code loads it
    from matplotlib.axes import Axes
    from matplotlib.colors import Colormap
    from matplotlib.figure import Figure

Array = NDArray[np.float64]
PE_BASE = 10000.0
LEARNED_SEED = 20240601
LEARNED_STD = 0.02
DIVERGING = "RdBu_r"
LINE_MARGINS = {"left": 0.1, "right": 0.98, "bottom": 0.14, "top": 0.9}


def sinusoidal_table(max_len: int, d_model: int) -> Array:
    """PE[p, 2i] = sin(p / 10000^(2i/d)), PE[p, 2i+1] = cos(same): the table the lesson derives."""
    if d_model % 2:
        raise ValueError(f"d_model must be even, got {d_model}")
    positions = np.arange(max_len, dtype=np.float64)[:, None]
    even_dims = np.arange(0, d_model, 2, dtype=np.float64)
    angles = positions / PE_BASE ** (even_dims / d_model)
    table = np.empty((max_len, d_model), dtype=np.float64)
    table[:, 0::2] = np.sin(angles)
    table[:, 1::2] = np.cos(angles)
    return table


def sinusoidal_similarity(max_len: int, d_model: int) -> tuple[NDArray[np.int64], Array, int]:
    """Dot products PE[p]·PE[q] for a fixed p in the middle, indexed by the offset q - p."""
    table = sinusoidal_table(max_len, d_model)
    anchor = max_len // 2
    offsets = np.arange(max_len, dtype=np.int64) - anchor
    return offsets, table @ table[anchor], anchor


def learned_table(max_len: int, d_model: int) -> Array:
    """A freshly initialised learned table: normal(0, 0.02) draws from a fixed seed."""
    rng = np.random.default_rng(LEARNED_SEED)
    return rng.normal(0.0, LEARNED_STD, size=(max_len, d_model))


def rope_theta(d_model: int, pair: int) -> float:
    """RoPE speed of dimension pair i: theta_i = 10000^(-2i/d_model) radians per position."""
    return float(PE_BASE ** (-2.0 * pair / d_model))


def rotate(vector: tuple[float, float], angle: float) -> tuple[float, float]:
    """The 2-D vector turned counter-clockwise by angle radians."""
    cos, sin = np.cos(angle), np.sin(angle)
    x, y = vector
    return float(cos * x - sin * y), float(sin * x + cos * y)


def alibi_slopes(heads: int) -> Array:
    """Slopes m_h = 2^(-8h/H) for h = 1..H (the geometric sequence of the ALiBi paper)."""
    h = np.arange(1, heads + 1, dtype=np.float64)
    return np.asarray(2.0 ** (-8.0 * h / heads), dtype=np.float64)


def alibi_bias(slope: float, length: int) -> Array:
    """Causal bias -m*(i - j) for key j <= query i; NaN above the diagonal (masked keys)."""
    i = np.arange(length, dtype=np.float64)[:, None]
    j = np.arange(length, dtype=np.float64)[None, :]
    return np.where(j <= i, -slope * (i - j), np.nan)


def _colormap(name: str) -> Colormap:
    import matplotlib

    return matplotlib.colormaps[name]


def _interpolation(shape: tuple[int, ...], large: str) -> str:
    """Small tables go in at one pixel per cell (crisp, tiny); big ones are resampled by `large`."""
    rows, cols = shape
    return "none" if rows <= 256 and cols <= 384 and rows * cols <= 32768 else large


def _heatmap(
    fig: Figure, table: Array, title: str, limit: float, *, large: str = "antialiased"
) -> None:
    fig.subplots_adjust(left=0.09, right=0.9, bottom=0.11, top=0.92)
    ax = fig.add_subplot()
    image = ax.imshow(
        table,
        cmap=DIVERGING,
        vmin=-limit,
        vmax=limit,
        aspect="auto",
        interpolation=_interpolation(table.shape, large),
        origin="upper",
    )
    ax.set_xlabel("dimension")
    ax.set_ylabel("position")
    ax.set_title(title)
    fig.colorbar(image, ax=ax, label="value", fraction=0.05, pad=0.02)


def draw_sinusoidal_heatmap(fig: Figure, p: Mapping[str, Any]) -> None:
    """Whole PE table: fast stripes on the left, slow ones on the right."""
    table = sinusoidal_table(p["max_len"], p["d_model"])
    title = f"Sinusoidal encoding, {p['max_len']} positions × {p['d_model']} dims"
    _heatmap(fig, table, title, 1.0)


def draw_learned_table(fig: Figure, p: Mapping[str, Any]) -> None:
    """A learned table before training: noise with no structure along positions."""
    table = learned_table(p["max_len"], p["d_model"])
    title = f"Learned table at initialisation, normal(0, {LEARNED_STD})"
    # Colours span ±3 standard deviations; smoothing would average the noise away, so big
    # tables are shown by picking cells (every cell is a draw from the same distribution).
    _heatmap(fig, table, title, 3 * LEARNED_STD, large="nearest")


def draw_sinusoidal_curves(fig: Figure, p: Mapping[str, Any]) -> None:
    """Chosen columns of PE as waves: each dimension pair has its own wavelength."""
    table = sinusoidal_table(p["max_len"], p["d_model"])
    fig.subplots_adjust(**{**LINE_MARGINS, "right": 0.8})
    ax = fig.add_subplot()
    positions = np.arange(p["max_len"])
    for dim in p["dims"]:
        kind = "sin" if dim % 2 == 0 else "cos"
        ax.plot(positions, table[:, dim], marker=".", markersize=3, label=f"dim {dim} ({kind})")
    ax.set_xlabel("position")
    ax.set_ylabel("PE[position, dim]")
    ax.set_ylim(-1.15, 1.15)
    ax.set_title(f"Columns of the sinusoidal table, d_model = {p['d_model']}")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small")
    ax.grid(alpha=0.3)


def draw_sinusoidal_similarity(fig: Figure, p: Mapping[str, Any]) -> None:
    """PE[p]·PE[q] depends only on q - p and falls off on both sides alike."""
    offsets, dots, anchor = sinusoidal_similarity(p["max_len"], p["d_model"])
    fig.subplots_adjust(**LINE_MARGINS)
    ax = fig.add_subplot()
    ax.plot(offsets, dots, marker=".", markersize=3)
    ax.axvline(0, color="0.6", linewidth=0.8)
    ax.set_xlabel(f"offset q − p (p = {anchor})")
    ax.set_ylabel("PE[p] · PE[q]")
    ax.set_title(f"Similarity of positions, d_model = {p['d_model']}")
    ax.grid(alpha=0.3)


def _rotation_panel(ax: Axes, theta: float, positions: tuple[int, ...], title: str) -> None:
    circle = np.linspace(0.0, 2.0 * np.pi, 200)
    ax.plot(np.cos(circle), np.sin(circle), color="0.8", linewidth=0.8, linestyle="--")
    colors = _colormap("viridis")(np.linspace(0.0, 0.9, max(len(positions), 1)))
    for color, pos in zip(colors, positions, strict=True):
        x, y = rotate((1.0, 0.0), pos * theta)
        ax.annotate(
            "",
            xy=(x, y),
            xytext=(0.0, 0.0),
            arrowprops={"arrowstyle": "->", "color": color, "linewidth": 1.5},
        )
        ax.text(1.15 * x, 1.15 * y, str(pos), ha="center", va="center", color=color)
    ax.set_xlim(-1.35, 1.35)
    ax.set_ylim(-1.35, 1.35)
    ax.set_aspect("equal")
    ax.set_title(title, fontsize="medium")
    ax.set_xticks([-1, 0, 1])
    ax.set_yticks([-1, 0, 1])


def draw_rope_rotation(fig: Figure, p: Mapping[str, Any]) -> None:
    """The same vector turned by p·theta: one panel for the fastest pair, one for a slower one."""
    fast, slow = rope_theta(p["d_model"], 0), rope_theta(p["d_model"], p["pair"])
    fig.subplots_adjust(left=0.05, right=0.98, bottom=0.08, top=0.82, wspace=0.25)
    left, right = fig.subplots(1, 2)
    _rotation_panel(left, fast, p["positions"], f"pair 0: θ = {fast:.3g} rad/position")
    _rotation_panel(right, slow, p["positions"], f"pair {p['pair']}: θ = {slow:.3g} rad/position")
    fig.suptitle(f"RoPE rotates each pair by position × θ (d_model = {p['d_model']})")


def alibi_heads_shown(heads: int) -> list[int]:
    """At most four heads, spread from the steepest slope to the gentlest."""
    count = min(heads, 4)
    return sorted({round(h) for h in np.linspace(1, heads, count)})


def draw_alibi_bias(fig: Figure, p: Mapping[str, Any]) -> None:
    """Bias added to attention scores: steeper heads forget distant keys faster."""
    slopes = alibi_slopes(p["heads"])
    shown = alibi_heads_shown(p["heads"])
    fig.subplots_adjust(left=0.07, right=0.9, bottom=0.14, top=0.82, wspace=0.12)
    axes = fig.subplots(1, len(shown), squeeze=False, sharey=True)[0]
    lowest = -float(slopes[0]) * (p["T"] - 1)
    cmap = _colormap("viridis").with_extremes(bad="#eeeeee")
    image = None
    for ax, head in zip(axes, shown, strict=True):
        slope = float(slopes[head - 1])
        bias = np.ma.masked_invalid(alibi_bias(slope, p["T"]))
        image = ax.imshow(bias, cmap=cmap, vmin=lowest, vmax=0.0, interpolation="none")
        ax.set_title(f"head {head}: m = 1/{1 / slope:.3g}", fontsize="medium")
        ax.set_xlabel("key j")
    axes[0].set_ylabel("query i")
    if image is not None:
        fig.colorbar(image, ax=list(axes), label="bias −m·(i − j)", fraction=0.04, pad=0.02)
    fig.suptitle(f"ALiBi bias, {p['heads']} heads, {p['T']} tokens (grey: masked)")
