"""Test cases for merge-heads: visible ones first, then hidden edge cases.

x is (B, H, T, d_head) float32. The number of heads, the sequence length and the head width
differ in most cases, so that a merge in the wrong axis order is caught by its values.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def _case(name: str, hidden: bool, x: np.ndarray) -> dict[str, Any]:
    return {"name": name, "hidden": hidden, "inputs": {"x": x.astype(np.float32)}}


def cases() -> list[dict[str, Any]]:
    """Deterministic cases (a fixed seed)."""
    rng = np.random.default_rng(4_2017)

    def x(b: int, h: int, t: int, d_head: int) -> np.ndarray:
        return rng.standard_normal((b, h, t, d_head))

    return [
        _case("two heads of width 3, four tokens", False, x(1, 2, 4, 3)),
        _case("three heads of width 4, a batch of two", False, x(2, 3, 5, 4)),
        _case("one head", False, x(2, 1, 3, 8)),
        _case("a single token", True, x(2, 4, 1, 4)),
        _case("heads of width 1", True, x(1, 5, 6, 1)),
        _case("eight heads of width 8, 32 tokens", True, x(2, 8, 32, 8)),
        _case("four heads of width 6", True, x(3, 4, 7, 6)),
    ]


def generate(rng: np.random.Generator, size: int) -> dict[str, Any]:
    """Heads 1, 2, 3, 1, 2 of width size + 1, over size + 1 tokens."""
    heads = 1 + (size - 1) % 3
    return _case("generated", False, rng.standard_normal((1 + size % 2, heads, size + 1, size + 1)))
