"""Test cases for split-heads: visible ones first, then hidden edge cases.

x is (B, T, d_model) float32 and num_heads a Python int dividing d_model. Sequence lengths,
head counts and head widths differ from one another in most cases, so a reshape that puts
the axes in the wrong order cannot pass by having the right shape and the same numbers.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def _case(name: str, hidden: bool, x: np.ndarray, num_heads: int) -> dict[str, Any]:
    inputs = {"x": x.astype(np.float32), "num_heads": num_heads}
    return {"name": name, "hidden": hidden, "inputs": inputs}


def cases() -> list[dict[str, Any]]:
    """Deterministic cases (a fixed seed)."""
    rng = np.random.default_rng(3_2017)

    def x(b: int, t: int, d_model: int) -> np.ndarray:
        return rng.standard_normal((b, t, d_model))

    return [
        _case("two heads of width 4, four tokens", False, x(1, 4, 8), 2),
        _case("three heads of width 4, a batch of two", False, x(2, 5, 12), 3),
        _case("one head: the whole width", False, x(2, 3, 8), 1),
        _case("a single token", True, x(2, 1, 16), 4),
        _case("heads of width 1", True, x(1, 6, 5), 5),
        _case("eight heads of width 8, 32 tokens", True, x(2, 32, 64), 8),
        _case("four heads of width 6", True, x(3, 7, 24), 4),
    ]


def generate(rng: np.random.Generator, size: int) -> dict[str, Any]:
    """Heads 1, 2, 3, 1, 2 of width size + 1, over size + 1 tokens."""
    heads = 1 + (size - 1) % 3
    x = rng.standard_normal((1 + size % 2, size + 1, heads * (size + 1)))
    return _case("generated", False, x, heads)
