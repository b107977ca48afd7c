"""Test cases for rope-rotate: visible ones first, then hidden edge cases."""

from __future__ import annotations

from typing import Any

import numpy as np


def _case(name: str, hidden: bool, x: np.ndarray) -> dict[str, Any]:
    return {"name": name, "hidden": hidden, "inputs": {"x": x.astype(np.float32)}}


def cases() -> list[dict[str, Any]]:
    """Deterministic cases; x is always (N, T, d) float32 with d even."""
    rng = np.random.default_rng(7_2024)

    def normal(n: int, t: int, d: int, scale: float = 1.0) -> np.ndarray:
        return scale * rng.standard_normal((n, t, d))

    return [
        _case("one sequence, four positions", False, normal(1, 4, 4)),
        _case("batch of two", False, normal(2, 6, 8)),
        _case("batch of three", False, normal(3, 10, 16)),
        _case("T of 1", True, normal(2, 1, 8)),
        _case("d of 2", True, normal(2, 12, 2)),
        _case("batch of one, d not a power of two", True, normal(1, 7, 6)),
        _case("long sequence", True, normal(2, 64, 32)),
        _case("head size 128", True, normal(1, 16, 128)),
        _case("large values", True, normal(2, 8, 16, scale=100.0)),
    ]


def generate(rng: np.random.Generator, size: int) -> dict[str, Any]:
    """Queries that grow with `size`: more sequences, positions and pairs."""
    x = rng.standard_normal((1 + size // 2, size + 1, 2 * size))
    return _case("generated", False, x)
