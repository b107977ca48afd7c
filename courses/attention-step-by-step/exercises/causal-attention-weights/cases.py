"""Test cases for causal-attention-weights: visible ones first, then hidden edge cases.

scores is (B, H, T, T) float32, already scaled: row i holds query i's scores against keys
0 .. T-1. One case makes the future keys the most attractive ones, so that a mask on the
wrong triangle shows at once; one has equal scores everywhere, so that a right answer is
1 / (i + 1) on and below the diagonal of row i.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def _case(name: str, hidden: bool, scores: np.ndarray) -> dict[str, Any]:
    return {"name": name, "hidden": hidden, "inputs": {"scores": scores.astype(np.float32)}}


def cases() -> list[dict[str, Any]]:
    """Deterministic cases (a fixed seed)."""
    rng = np.random.default_rng(2_2017)

    def scores(b: int, h: int, t: int, scale: float = 1.0) -> np.ndarray:
        return scale * rng.standard_normal((b, h, t, t))

    future_first = scores(1, 2, 5) + 4.0 * np.triu(np.ones((5, 5)), k=1)
    return [
        _case("one head, four tokens", False, scores(1, 1, 4)),
        _case("two sequences, three heads", False, scores(2, 3, 5)),
        _case("the future keys score highest: they must still get no weight", False, future_first),
        _case(
            "equal scores: row i spreads its weight over keys 0..i", False, np.zeros((1, 2, 6, 6))
        ),
        _case("a single token", True, scores(2, 2, 1, 1)),
        _case("long sequence", True, scores(1, 2, 48)),
        _case("eight heads", True, scores(2, 8, 6)),
        _case(
            "scores in the hundreds: the softmax must not overflow", True, scores(1, 2, 9, 100.0)
        ),
        _case("scores far below zero", True, scores(1, 1, 7) - 1000.0),
    ]


def generate(rng: np.random.Generator, size: int) -> dict[str, Any]:
    """One or two sequences and heads, and sequences that grow with `size`."""
    b, h, t = 1 + size % 2, 1 + (size + 1) % 2, size + 1
    return _case("generated", False, rng.standard_normal((b, h, t, t)))
