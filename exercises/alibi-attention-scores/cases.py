"""Test cases for alibi-attention-scores: visible ones first, then hidden edge cases.

q and k are (H, T, d) float32 with H a power of two. Cases with a "property" are drawn so
that a right answer shows ALiBi's defining rule on its own: with zero queries (or keys) every
score is exactly -m_h * (i - j), and with one query vector and one key vector per head, repeated
at every position, each step back costs the same m_h. properties.py explains a failure there.
"""

from __future__ import annotations

from typing import Any

import numpy as np

LINEAR = "penalty_grows_linearly"


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
    """Deterministic cases (a fixed seed)."""
    rng = np.random.default_rng(9_2024)

    def pair(h: int, t: int, d: int) -> tuple[np.ndarray, np.ndarray]:
        return rng.standard_normal((h, t, d)), rng.standard_normal((h, t, d))

    def repeated(h: int, t: int, d: int) -> tuple[np.ndarray, np.ndarray]:
        """Per head, one query vector at every position and one key vector at every position."""
        a, b = rng.standard_normal((h, 1, d)), rng.standard_normal((h, 1, d))
        return np.repeat(a, t, axis=1), np.repeat(b, t, axis=1)

    def zero_keys(h: int, t: int, d: int) -> tuple[np.ndarray, np.ndarray]:
        return rng.standard_normal((h, t, d)), np.zeros((h, t, d))

    def zero_queries(h: int, t: int, d: int) -> tuple[np.ndarray, np.ndarray]:
        return np.zeros((h, t, d)), rng.standard_normal((h, t, d))

    return [
        _case("two heads, three positions", False, *pair(2, 3, 4)),
        _case("four heads", False, *pair(4, 6, 8)),
        _case(
            "zero keys: scores are -m_h (i - j), linear in distance",
            False,
            *zero_keys(4, 5, 4),
            prop=LINEAR,
        ),
        _case(
            "same vectors at every position: each step back costs the same slope",
            False,
            *repeated(2, 6, 4),
            prop=LINEAR,
        ),
        _case("T of 1", True, *pair(8, 1, 8)),
        _case("one head", True, *pair(1, 7, 4)),
        _case("eight heads, long sequence", True, *pair(8, 48, 16)),
        _case("sixteen heads", True, *pair(16, 10, 8)),
        _case(
            "zero queries, sixteen heads: the penalty grows linearly with distance",
            True,
            *zero_queries(16, 12, 8),
            prop=LINEAR,
        ),
        _case(
            "same vectors at every position, eight heads: each step back costs the same slope",
            True,
            *repeated(8, 20, 16),
            prop=LINEAR,
        ),
    ]


def generate(rng: np.random.Generator, size: int) -> dict[str, Any]:
    """Heads 1, 2, 4, 1, 2 and sequences that grow with `size`."""
    h, t, d = 2 ** ((size - 1) % 3), size + 1, 2 + size % 3
    return _case("generated", False, rng.standard_normal((h, t, d)), rng.standard_normal((h, t, d)))
