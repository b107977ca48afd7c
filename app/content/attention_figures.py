"""Figures of the attention course: the scale measured on random draws, and per-head weights.

NumPy only (pages never load torch). The numbers are computed, not typed in: the lessons quote
what these functions return, and tests hold the two together.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

if TYPE_CHECKING:
    from matplotlib.figure import Figure

Array = NDArray[np.float64]
SCALE_SEED = 20260101
SCALE_ROWS = 1000  # queries drawn per width: variance within a few per cent, in about 0.5 s
HEAD_NAMES = ("previous token", "same token", "first token", "average of the past")
HEAD_STRENGTH = 5.0  # the score a head's matching key gets; every other visible key gets 0


@dataclass(frozen=True)
class ScaleMeasure:
    """Variance of the scores and mean softmax entropy (nats) per key width, without and with
    the 1/sqrt(d_k) scale, for rows of `keys` keys."""

    widths: NDArray[np.int64]
    variance: Array
    variance_scaled: Array
    entropy: Array
    entropy_scaled: Array
    keys: int


def widths_up_to(max_dk: int) -> NDArray[np.int64]:
    """1, 2, 4, ... up to max_dk: the key widths the figure measures."""
    return np.asarray([2**i for i in range(int(np.log2(max_dk)) + 1)], dtype=np.int64)


def softmax_entropy(scores: Array) -> Array:
    """Entropy in nats of softmax(scores) along the last axis (stable for large scores)."""
    shifted = scores - scores.max(axis=-1, keepdims=True)
    log_w = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
    return np.asarray(-(np.exp(log_w) * log_w).sum(axis=-1), dtype=np.float64)


def measure_scale(max_dk: int, keys: int) -> ScaleMeasure:
    """Draw unit-variance queries and keys for each width and measure what the softmax sees."""
    rng = np.random.default_rng(SCALE_SEED)
    widths = widths_up_to(max_dk)
    found: dict[str, list[float]] = {"v": [], "vs": [], "h": [], "hs": []}
    for d in widths:
        q = rng.standard_normal((SCALE_ROWS, int(d)))
        k = rng.standard_normal((SCALE_ROWS, keys, int(d)))
        scores = np.einsum("rd,rkd->rk", q, k)  # (rows, keys): one query against its keys
        scaled = scores / np.sqrt(d)
        found["v"].append(float(scores.var()))
        found["vs"].append(float(scaled.var()))
        found["h"].append(float(softmax_entropy(scores).mean()))
        found["hs"].append(float(softmax_entropy(scaled).mean()))
    return ScaleMeasure(
        widths,
        np.asarray(found["v"]),
        np.asarray(found["vs"]),
        np.asarray(found["h"]),
        np.asarray(found["hs"]),
        keys,
    )


def head_scores(length: int) -> Array:
    """(4, T, T) scores of four hand-set heads: each gives HEAD_STRENGTH to one kind of key."""
    i = np.arange(length)[:, None]
    j = np.arange(length)[None, :]
    matches = (j == i - 1, j == i, j == 0, np.zeros((length, length), dtype=bool))
    shape = (length, length)
    return np.stack([np.where(np.broadcast_to(m, shape), HEAD_STRENGTH, 0.0) for m in matches])


def visible(length: int, real: int) -> NDArray[np.bool_]:
    """(T, T) mask: key j is visible to query i if j <= i (causal) and j < real (not padding)."""
    i = np.arange(length)[:, None]
    j = np.arange(length)[None, :]
    return np.asarray((j <= i) & (j < real), dtype=np.bool_)


def head_weights(length: int, real: int) -> Array:
    """(4, T, T) attention weights of the four heads under the causal and padding masks.

    Rows of padded queries keep their causal keys among the real ones, as a model computes them
    (their outputs are ignored later); hidden keys get exactly 0.
    """
    allowed = visible(length, real)
    scores = np.where(allowed, head_scores(length), -np.inf)
    scores = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    return np.asarray(weights / weights.sum(axis=-1, keepdims=True), dtype=np.float64)


def draw_attention_scale(fig: Figure, p: Mapping[str, Any]) -> None:
    """Left: variance of q·k against d_k; right: softmax entropy, unscaled and scaled."""
    m = measure_scale(p["max_dk"], p["keys"])
    fig.subplots_adjust(left=0.08, right=0.98, bottom=0.15, top=0.84, wspace=0.28)
    left, right = fig.subplots(1, 2)
    left.loglog(m.widths, m.variance, marker="o", label="q·k")
    left.loglog(m.widths, m.variance_scaled, marker="s", label="q·k / √d_k")
    left.set_xscale("log", base=2)
    left.set_xlabel("key width d_k")
    left.set_ylabel("variance of the scores")
    left.legend(fontsize="small")
    left.grid(alpha=0.3)
    right.semilogx(m.widths, m.entropy, marker="o", label="softmax(q·k)")
    right.semilogx(m.widths, m.entropy_scaled, marker="s", label="softmax(q·k / √d_k)")
    right.set_xscale("log", base=2)
    right.axhline(np.log(m.keys), color="0.5", linestyle="--", linewidth=0.8)
    right.text(m.widths[0], np.log(m.keys) * 0.95, f"uniform: ln {m.keys}", fontsize="small")
    right.set_ylim(0.0, np.log(m.keys) * 1.08)
    right.set_xlabel("key width d_k")
    right.set_ylabel("entropy of a row of weights (nats)")
    right.legend(fontsize="small", loc="lower left")
    right.grid(alpha=0.3)
    fig.suptitle(f"Measured: {SCALE_ROWS} random queries × {m.keys} keys per width")


def draw_attention_heads(fig: Figure, p: Mapping[str, Any]) -> None:
    """One heatmap per head: rows are queries, columns keys; grey cells are masked."""
    import matplotlib

    length, real = p["T"], min(p["real"], p["T"])
    weights = head_weights(length, real)
    hidden = ~visible(length, real)
    cmap = matplotlib.colormaps["viridis"].with_extremes(bad="#dddddd")
    fig.subplots_adjust(left=0.06, right=0.9, bottom=0.14, top=0.8, wspace=0.12)
    axes = fig.subplots(1, len(HEAD_NAMES), sharey=True)
    image = None
    for ax, name, table in zip(axes, HEAD_NAMES, weights, strict=True):
        shown = np.ma.masked_array(table, mask=hidden)
        image = ax.imshow(shown, cmap=cmap, vmin=0.0, vmax=1.0, interpolation="none")
        ax.set_title(name, fontsize="medium")
        ax.set_xlabel("key j")
    axes[0].set_ylabel("query i")
    if image is not None:
        fig.colorbar(image, ax=list(axes), label="weight", fraction=0.04, pad=0.02)
    padding = f", last {length - real} keys are padding" if real < length else ""
    fig.suptitle(f"Four heads, {length} tokens (grey: masked{padding})")


def window_masks(length: int, window: int, sinks: int) -> dict[str, NDArray[np.bool_]]:
    """The masks of lesson 4: causal, causal sliding window of `window` keys, and the window
    plus the first `sinks` tokens kept visible (StreamingLLM's attention sinks)."""
    i = np.arange(length)[:, None]
    j = np.arange(length)[None, :]
    causal = j <= i
    sliding = causal & (i - j < window)
    return {
        "causal": np.asarray(causal, dtype=np.bool_),
        f"sliding window, W = {window}": np.asarray(sliding, dtype=np.bool_),
        f"window + {sinks} sink token{'s' if sinks != 1 else ''}": np.asarray(
            sliding | (causal & (j < sinks)), dtype=np.bool_
        ),
    }


def draw_attention_masks(fig: Figure, p: Mapping[str, Any]) -> None:
    """Three masks side by side, each titled with the number of (query, key) pairs it keeps."""
    from matplotlib.colors import ListedColormap
    from matplotlib.ticker import MaxNLocator

    masks = window_masks(p["T"], p["W"], p["sinks"])
    fig.subplots_adjust(left=0.06, right=0.98, bottom=0.14, top=0.8, wspace=0.15)
    axes = fig.subplots(1, len(masks), sharey=True)
    cmap = ListedColormap(["#eeeeee", "#1f77b4"])
    for ax, (name, mask) in zip(axes, masks.items(), strict=True):
        ax.imshow(mask, cmap=cmap, vmin=0, vmax=1, interpolation="none")
        ax.set_title(f"{name}\n{int(mask.sum())} of {mask.size} pairs", fontsize="medium")
        ax.set_xlabel("key j")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    axes[0].set_ylabel("query i")
    fig.suptitle(f"Which keys each query sees, {p['T']} tokens (blue: visible)")
