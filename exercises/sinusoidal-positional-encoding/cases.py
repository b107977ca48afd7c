"""Test cases for sinusoidal-positional-encoding: visible ones first, then hidden edge cases.

The inputs are two Python ints, so there is nothing random to draw; the list is fixed.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def _case(name: str, hidden: bool, max_len: int, d_model: int) -> dict[str, Any]:
    return {"name": name, "hidden": hidden, "inputs": {"max_len": max_len, "d_model": d_model}}


def cases() -> list[dict[str, Any]]:
    """Deterministic cases (max_len, d_model), d_model always even."""
    return [
        _case("tiny table", False, 3, 4),
        _case("ten positions", False, 10, 8),
        _case("fifty positions", False, 50, 16),
        _case("max_len of 1", True, 1, 8),
        _case("d_model of 2", True, 20, 2),
        _case("smallest table", True, 1, 2),
        _case("d_model not a power of two", True, 7, 6),
        _case("d_model larger than max_len", True, 16, 64),
        _case("long table", True, 128, 64),
    ]


def generate(rng: np.random.Generator, size: int) -> dict[str, Any]:
    """Tables that grow with `size`; d_model is always even, max_len is drawn."""
    return _case("generated", False, int(rng.integers(1, 4 * size + 1)), 2 * size)
