"""Test cases for kv-cache-decoding: visible ones first, then hidden edge cases.

Each case is a batch of left-padded prompts of C slots (sequence b starts with pad[b] padding
slots) already run through the layer: k_cache and v_cache are its keys (rotated by RoPE at
positions slot - pad[b]) and values, (B, H, C, d_head). x holds the S new tokens, (B, S,
d_model). The weights are an nn.MultiheadAttention's state_dict, drawn as the module draws them,
with non-zero biases. Padding slots hold keys and values of a random vector, as a real model's
padding token would, so a mask that misses them changes the output.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def _layer(rng: np.random.Generator, d_model: int) -> dict[str, np.ndarray]:
    """One layer's weights, named as nn.MultiheadAttention's state_dict names them."""
    in_bound = np.sqrt(6.0 / (3 * d_model + d_model))
    out_bound = 1.0 / np.sqrt(d_model)
    return {
        "in_proj_weight": rng.uniform(-in_bound, in_bound, (3 * d_model, d_model)),
        "in_proj_bias": 0.1 * rng.standard_normal(3 * d_model),
        "out_proj_weight": rng.uniform(-out_bound, out_bound, (d_model, d_model)),
        "out_proj_bias": 0.1 * rng.standard_normal(d_model),
    }


def _cache(
    prompt: np.ndarray, pad: np.ndarray, layer: dict[str, np.ndarray], num_heads: int
) -> tuple[np.ndarray, np.ndarray]:
    """Rotated keys and values of the prompt's C slots, (B, H, C, d_head) each."""
    b, c, d_model = prompt.shape
    d_head = d_model // num_heads
    qkv = prompt @ layer["in_proj_weight"].T + layer["in_proj_bias"]
    k, v = (
        part.reshape(b, c, num_heads, d_head).transpose(0, 2, 1, 3)
        for part in np.split(qkv, 3, axis=-1)[1:]
    )
    positions = np.maximum(np.arange(c)[None, :] - pad[:, None], 0)  # padding slots: 0
    theta = 10000.0 ** (-np.arange(0, d_head, 2) / d_head)
    angles = positions[:, None, :, None] * theta  # (B, 1, C, d_head / 2)
    cos, sin = np.cos(angles), np.sin(angles)
    rotated = np.empty(k.shape)
    rotated[..., 0::2] = k[..., 0::2] * cos - k[..., 1::2] * sin
    rotated[..., 1::2] = k[..., 0::2] * sin + k[..., 1::2] * cos
    return rotated, v


def _case(
    name: str,
    hidden: bool,
    rng: np.random.Generator,
    shape: tuple[int, int, int, int, int],
    pad: list[int],
    scale: float = 1.0,
) -> dict[str, Any]:
    b, c, s, d_model, num_heads = shape
    layer = _layer(rng, d_model)
    prompt = scale * rng.standard_normal((b, c, d_model))
    pads = np.asarray(pad, dtype=np.int64)
    k_cache, v_cache = _cache(prompt, pads, layer, num_heads)
    inputs: dict[str, Any] = {
        "x": (scale * rng.standard_normal((b, s, d_model))).astype(np.float32),
        "k_cache": k_cache.astype(np.float32),
        "v_cache": v_cache.astype(np.float32),
        "pad": pads,
    }
    inputs.update({key: value.astype(np.float32) for key, value in layer.items()})
    inputs["num_heads"] = num_heads
    return {"name": name, "hidden": hidden, "inputs": inputs}


def cases() -> list[dict[str, Any]]:
    """Deterministic cases (a fixed seed); shapes are (B, C, S, d_model, num_heads)."""
    rng = np.random.default_rng(7_2017)
    return [
        _case("one new token after four cached ones", False, rng, (1, 4, 1, 8, 2), [0]),
        _case("two sequences, the second left-padded by 3", False, rng, (2, 5, 1, 8, 2), [0, 3]),
        _case(
            "three new tokens at once: the causal mask sits at the bottom right",
            False,
            rng,
            (2, 4, 3, 8, 2),
            [1, 0],
        ),
        _case("a cache of one token", True, rng, (2, 1, 1, 8, 2), [0, 1]),
        _case(
            "a cache of padding only: the new token is at position 0",
            True,
            rng,
            (2, 5, 1, 8, 2),
            [5, 2],
        ),
        _case("a cache of 24, four heads of width 4", True, rng, (2, 24, 1, 16, 4), [7, 0]),
        _case(
            "two new tokens, three sequences, four heads",
            True,
            rng,
            (3, 6, 2, 16, 4),
            [0, 3, 5],
        ),
        _case("larger inputs", True, rng, (2, 5, 1, 8, 2), [2, 0], scale=3.0),
    ]


# (B, C, S, d_model, num_heads) of the generated cases: shapes the fixed cases already use, so a
# JAX submission compiles nothing new for them.
GENERATED_SHAPES = (
    (1, 4, 1, 8, 2),
    (2, 5, 1, 8, 2),
    (2, 4, 3, 8, 2),
    (2, 5, 1, 8, 2),
    (3, 6, 2, 16, 4),
)


def generate(rng: np.random.Generator, size: int) -> dict[str, Any]:
    """New prompts, paddings (0 to C - 1) and weights on the fixed cases' shapes."""
    shape = GENERATED_SHAPES[size - 1]
    b, c = shape[0], shape[1]
    pad = [int(n) for n in rng.integers(0, c, size=b)]
    return _case("generated", False, rng, shape, pad)
