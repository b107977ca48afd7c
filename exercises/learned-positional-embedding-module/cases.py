"""Test cases for learned-positional-embedding-module: visible ones first, then hidden ones.

Each case builds LearnedPositionalEmbedding(max_len, d_model), sets its one trainable parameter
to the case's `table` (so the module is graded on values the grader chose, not on its own
initial ones: a table of zeros that is never added would otherwise pass), and calls it on x.
A case with "expect_error": True must make forward raise (T > max_len); the reference is not
called for it. "one-row table, three positions" catches a missing length check: there a short
table[:T] has one row and would broadcast over all three positions without any error.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def _case(
    rng: np.random.Generator,
    name: str,
    hidden: bool,
    max_len: int,
    n: int,
    t: int,
    d_model: int,
    expect_error: bool = False,
) -> dict[str, Any]:
    case: dict[str, Any] = {
        "name": name,
        "hidden": hidden,
        "inputs": {
            "max_len": max_len,
            "d_model": d_model,
            "x": rng.standard_normal((n, t, d_model)).astype(np.float32),
            "table": rng.standard_normal((max_len, d_model)).astype(np.float32),
        },
    }
    if expect_error:
        case["expect_error"] = True
    return case


def cases() -> list[dict[str, Any]]:
    """Deterministic cases; x is a float32 array of shape (N, T, d_model)."""
    rng = np.random.default_rng(505)
    return [
        _case(rng, "short sequences", False, 16, 2, 5, 8),
        _case(rng, "single sequence", False, 10, 1, 7, 4),
        _case(rng, "T equals 1", True, 16, 3, 1, 8),
        _case(rng, "T equals max_len", True, 12, 2, 12, 6),
        _case(rng, "d_model of 1", True, 8, 2, 4, 1),
        _case(rng, "max_len of 1", True, 1, 2, 1, 4),
        _case(rng, "larger batch", True, 64, 8, 20, 32),
        _case(rng, "T larger than max_len", True, 8, 2, 9, 4, expect_error=True),
        _case(rng, "one-row table, three positions", True, 1, 2, 3, 4, expect_error=True),
    ]


def generate(rng: np.random.Generator, size: int) -> dict[str, Any]:
    """A module and a batch that grow with `size`; T never exceeds max_len here."""
    max_len = 2 * size + 1
    return _case(rng, "generated", False, max_len, 1 + size // 2, size + 1, size)
