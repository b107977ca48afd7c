"""Test cases for alibi-bias: visible ones first, then hidden edge cases.

Inputs are Python numbers; num_heads is always a power of two, and some cases send the
arguments as floats holding whole numbers.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def _case(name: str, hidden: bool, num_heads: float, T: float) -> dict[str, Any]:
    return {"name": name, "hidden": hidden, "inputs": {"num_heads": num_heads, "T": T}}


def cases() -> list[dict[str, Any]]:
    """Deterministic cases (num_heads, T); nothing random to draw."""
    return [
        _case("two heads, three positions", False, 2, 3),
        _case("eight heads", False, 8, 6),
        _case("arguments as floats", False, 4.0, 5.0),
        _case("T of 1", True, 8, 1),
        _case("one head", True, 1, 7),
        _case("sixteen heads", True, 16, 10),
        _case("long sequence", True, 8, 64),
        _case("many heads, floats", True, 32.0, 12.0),
        _case("four heads, T of 2", True, 4, 2),
    ]


def generate(rng: np.random.Generator, size: int) -> dict[str, Any]:
    """Heads 1, 2, 4, ... and sequences that grow with `size`."""
    return _case("generated", False, 2 ** (size - 1), int(rng.integers(size, 2 * size + 1)))
