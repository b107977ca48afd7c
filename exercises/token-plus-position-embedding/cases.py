"""Test cases for token-plus-position-embedding: visible ones first, then hidden edge cases."""

from __future__ import annotations

from typing import Any

import numpy as np


def _case(
    rng: np.random.Generator,
    name: str,
    hidden: bool,
    token_ids: Any,
    vocab_size: int,
    max_len: int,
    d_model: int,
) -> dict[str, Any]:
    return {
        "name": name,
        "hidden": hidden,
        "inputs": {
            "token_ids": np.asarray(token_ids, dtype=np.float32),
            "token_table": rng.standard_normal((vocab_size, d_model)).astype(np.float32),
            "position_table": rng.standard_normal((max_len, d_model)).astype(np.float32),
        },
    }


def cases() -> list[dict[str, Any]]:
    """Deterministic cases; token ids are float32 arrays holding integers."""
    rng = np.random.default_rng(404)
    return [
        _case(rng, "small batch", False, [[3, 7, 1], [0, 9, 9]], 10, 6, 4),
        _case(rng, "repeated tokens", False, [[5, 5, 5, 5, 5], [2, 8, 2, 8, 2]], 10, 6, 4),
        _case(rng, "three sequences", False, rng.integers(0, 20, size=(3, 4)), 20, 8, 6),
        _case(rng, "T equals 1", True, [[4], [0], [9]], 10, 6, 4),
        _case(rng, "T equals max_len", True, rng.integers(0, 10, size=(2, 6)), 10, 6, 4),
        _case(rng, "d_model of 1", True, [[1, 2, 3, 4], [9, 8, 7, 6]], 10, 6, 1),
        _case(rng, "batch of one", True, rng.integers(0, 10, size=(1, 5)), 10, 6, 4),
        _case(rng, "vocab smaller than max_len", True, rng.integers(0, 4, size=(2, 10)), 4, 16, 8),
        _case(rng, "larger batch", True, rng.integers(0, 100, size=(8, 16)), 100, 32, 16),
    ]


def generate(rng: np.random.Generator, size: int) -> dict[str, Any]:
    """A batch that grows with `size`; the position table is longer than T."""
    n, t, vocab, d_model = 1 + size // 2, size + 1, 2 * size + 3, size
    ids = rng.integers(0, vocab, size=(n, t))
    return _case(rng, "generated", False, ids, vocab, t + size, d_model)
