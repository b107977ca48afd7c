"""Test cases for causal-self-attention-rope: visible ones first, then hidden edge cases.

x is (B, T, d_model) float32 and lengths (B,) int64 (right padding, 1 to T real tokens). The
weights are an nn.MultiheadAttention(d_model, num_heads)'s state_dict, drawn as the module draws
them (Xavier-uniform in_proj_weight, Kaiming-uniform out_proj.weight) with non-zero biases, so
that a forgotten bias shows. No weight matrix is symmetric, so a projection by W instead of W^T
shows too. num_heads is a Python int; every head width is even (RoPE turns pairs).
"""

from __future__ import annotations

from typing import Any

import numpy as np


def _layer(rng: np.random.Generator, d_model: int) -> dict[str, np.ndarray]:
    """One layer's weights, named as nn.MultiheadAttention's state_dict names them."""
    in_bound = np.sqrt(6.0 / (3 * d_model + d_model))  # xavier_uniform_ on (3 d_model, d_model)
    out_bound = 1.0 / np.sqrt(d_model)  # nn.Linear's default
    return {
        "in_proj_weight": rng.uniform(-in_bound, in_bound, (3 * d_model, d_model)),
        "in_proj_bias": 0.1 * rng.standard_normal(3 * d_model),
        "out_proj_weight": rng.uniform(-out_bound, out_bound, (d_model, d_model)),
        "out_proj_bias": 0.1 * rng.standard_normal(d_model),
    }


def _case(
    name: str,
    hidden: bool,
    x: np.ndarray,
    lengths: list[int],
    layer: dict[str, np.ndarray],
    num_heads: int,
) -> dict[str, Any]:
    inputs: dict[str, Any] = {
        "x": x.astype(np.float32),
        "lengths": np.asarray(lengths, dtype=np.int64),
    }
    inputs.update({key: value.astype(np.float32) for key, value in layer.items()})
    inputs["num_heads"] = num_heads
    return {"name": name, "hidden": hidden, "inputs": inputs}


def cases() -> list[dict[str, Any]]:
    """Deterministic cases (a fixed seed)."""
    rng = np.random.default_rng(6_2017)

    def make(
        name: str,
        hidden: bool,
        b: int,
        t: int,
        d_model: int,
        heads: int,
        lengths: list[int],
        scale: float = 1.0,
    ) -> dict[str, Any]:
        x = scale * rng.standard_normal((b, t, d_model))
        return _case(name, hidden, x, lengths, _layer(rng, d_model), heads)

    return [
        make("one sequence of four tokens, two heads of width 4", False, 1, 4, 8, 2, [4]),
        make("two sequences of lengths 5 and 3", False, 2, 5, 8, 2, [5, 3]),
        make("four heads of width 4", False, 2, 6, 16, 4, [6, 4]),
        make("a single token: RoPE turns nothing", True, 2, 1, 8, 2, [1, 1]),
        make("one head of the whole width", True, 2, 5, 8, 1, [2, 5]),
        make("heads of width 2: one RoPE pair each", True, 1, 6, 8, 4, [6]),
        make("long sequence: 32 tokens, four heads of width 8", True, 2, 32, 32, 4, [32, 19]),
        make("larger inputs", True, 2, 5, 8, 2, [4, 5], scale=3.0),
        make("one real token and four padding tokens", True, 2, 5, 8, 2, [1, 5]),
    ]


# (B, T, d_model, num_heads) of the generated cases: shapes the fixed cases already use, so a
# JAX submission compiles nothing new for them.
GENERATED_SHAPES = ((1, 4, 8, 2), (2, 5, 8, 2), (2, 6, 16, 4), (2, 5, 8, 1), (1, 6, 8, 4))


def generate(rng: np.random.Generator, size: int) -> dict[str, Any]:
    """New inputs, lengths and weights on the fixed cases' shapes; at least two real tokens
    (with one, every query sees key 0 alone and RoPE could not change a thing)."""
    b, t, d_model, heads = GENERATED_SHAPES[size - 1]
    lengths = [int(n) for n in rng.integers(2, t + 1, size=b)]
    x = rng.standard_normal((b, t, d_model))
    return _case("generated", False, x, lengths, _layer(rng, d_model), heads)
