"""Test cases for scaled-dot-product-attention: visible ones first, then hidden edge cases.

q is (B, Tq, d_k), k is (B, Tk, d_k) and v is (B, Tk, d_v), all float32. The cases separate
the width used for the scale (d_k) from the width of the values (d_v), and the number of
queries from the number of keys, so that a softmax over the wrong axis or a scale taken from
the wrong array cannot pass by luck.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def _case(name: str, hidden: bool, q: np.ndarray, k: np.ndarray, v: np.ndarray) -> dict[str, Any]:
    inputs = {"q": q.astype(np.float32), "k": k.astype(np.float32), "v": v.astype(np.float32)}
    return {"name": name, "hidden": hidden, "inputs": inputs}


def cases() -> list[dict[str, Any]]:
    """Deterministic cases (a fixed seed)."""
    rng = np.random.default_rng(1_2017)

    def qkv(
        b: int, t_q: int, t_k: int, d_k: int, d_v: int, scale: float = 1.0
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        q = scale * rng.standard_normal((b, t_q, d_k))
        k = scale * rng.standard_normal((b, t_k, d_k))
        return q, k, rng.standard_normal((b, t_k, d_v))

    return [
        _case("one sequence of four tokens, d_k = d_v = 8", False, *qkv(1, 4, 4, 8, 8)),
        _case("batch of three, d_v (6) differs from d_k (8)", False, *qkv(3, 5, 5, 8, 6)),
        _case("cross-attention: 3 queries, 7 keys", False, *qkv(2, 3, 7, 4, 4)),
        _case(
            "scores in the hundreds: the softmax must not overflow",
            False,
            *qkv(1, 6, 6, 16, 4, scale=25.0),
        ),
        _case("a single query", True, *qkv(2, 1, 9, 8, 8)),
        _case("a single key", True, *qkv(2, 5, 1, 8, 3)),
        _case("wide heads: d_k = 64, d_v = 32", True, *qkv(2, 16, 16, 64, 32)),
        _case("long sequence", True, *qkv(1, 64, 64, 16, 16)),
        _case("tiny values: nearly uniform weights", True, *qkv(2, 6, 6, 8, 8, scale=0.01)),
        _case(
            "large values, more keys than queries",
            True,
            *qkv(2, 4, 12, 32, 8, scale=8.0),
        ),
    ]


def generate(rng: np.random.Generator, size: int) -> dict[str, Any]:
    """Batches, sequences and widths that grow with `size`; queries and keys differ in number."""
    b, t_q, t_k, d_k, d_v = 1 + size % 2, size + 1, size + 2, 2 * size, size + 1
    q = rng.standard_normal((b, t_q, d_k))
    k = rng.standard_normal((b, t_k, d_k))
    return _case("generated", False, q, k, rng.standard_normal((b, t_k, d_v)))
