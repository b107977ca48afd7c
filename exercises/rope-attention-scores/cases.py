"""Test cases for rope-attention-scores: visible ones first, then hidden edge cases.

Cases named with a "property" are drawn so that a right answer has a shape anyone can check:
the same query vector at every position and the same key vector at every position. The scores
of such inputs depend only on the offset m - n (a Toeplitz matrix); when a submission fails
one of them, properties.py says where its scores break that rule.
"""

from __future__ import annotations

from typing import Any

import numpy as np

OFFSET_ONLY = "scores_depend_only_on_offset"


def _case(
    name: str, hidden: bool, q: np.ndarray, k: np.ndarray, prop: str | None = None
) -> dict[str, Any]:
    case: dict[str, Any] = {
        "name": name,
        "hidden": hidden,
        "inputs": {"q": q.astype(np.float32), "k": k.astype(np.float32)},
    }
    if prop:
        case["property"] = prop
    return case


def cases() -> list[dict[str, Any]]:
    """Deterministic cases; q and k are always (T, d) float32 with d even."""
    rng = np.random.default_rng(8_2024)

    def pair(t: int, d: int, scale: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
        return scale * rng.standard_normal((t, d)), scale * rng.standard_normal((t, d))

    def repeated(t: int, d: int) -> tuple[np.ndarray, np.ndarray]:
        """One query vector a at every position and one key vector b at every position."""
        a, b = rng.standard_normal(d), rng.standard_normal(d)
        return np.tile(a, (t, 1)), np.tile(b, (t, 1))

    return [
        _case("four positions, d of 4", False, *pair(4, 4)),
        _case("eight positions, d of 8", False, *pair(8, 8)),
        _case(
            "same vectors at every position: scores depend only on the offset",
            False,
            *repeated(6, 8),
            prop=OFFSET_ONLY,
        ),
        _case("T of 1", True, *pair(1, 8)),
        _case("d of 2", True, *pair(9, 2)),
        _case("d not a power of two", True, *pair(7, 6)),
        _case("long sequence", True, *pair(48, 32)),
        _case("head size 128", True, *pair(16, 128)),
        _case("large values", True, *pair(10, 16, scale=10.0)),
        _case(
            "same vectors at every position, long sequence: scores depend only on the offset",
            True,
            *repeated(32, 16),
            prop=OFFSET_ONLY,
        ),
        _case(
            "same vectors, d of 2: scores depend only on the offset",
            True,
            *repeated(12, 2),
            prop=OFFSET_ONLY,
        ),
    ]


def generate(rng: np.random.Generator, size: int) -> dict[str, Any]:
    """Queries and keys that grow with `size`: more positions and more pairs."""
    t, d = size + 1, 2 * size
    return _case("generated", False, rng.standard_normal((t, d)), rng.standard_normal((t, d)))
