"""The second course's new exercises hold what their statements promise (issue 53, point 3).

- causal-self-attention-rope: without RoPE its reference is `nn.MultiheadAttention` with the
  case's weights loaded by `load_state_dict`, both masks given in the module's polarity.
- kv-cache-decoding: token by token (and chunk by chunk) from a cache gives the full-sequence
  layer's outputs, whose real rows are the capstone's on the unpadded sequence; the cases'
  caches are the full-sequence layer's keys and values.
- key-padding-mask: its reference has both properties on every case, and each property names
  the first weight that breaks it.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from graders.judging.spec import ExerciseSpec, load_spec

EXERCISES = Path(__file__).resolve().parents[2] / "courses" / "attention-step-by-step" / "exercises"


def _spec(slug: str) -> ExerciseSpec:
    return load_spec(EXERCISES / slug)


def _module(slug: str, name: str) -> Any:
    """A trusted file of an exercise (cases.py, reference.py), imported on its own."""
    path = EXERCISES / slug / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"{name}_{slug.replace('-', '_')}_test", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _layer(rng: np.random.Generator, d_model: int, num_heads: int) -> dict[str, Any]:
    return {
        "in_proj_weight": 0.3 * rng.standard_normal((3 * d_model, d_model)),
        "in_proj_bias": 0.1 * rng.standard_normal(3 * d_model),
        "out_proj_weight": 0.3 * rng.standard_normal((d_model, d_model)),
        "out_proj_bias": 0.1 * rng.standard_normal(d_model),
        "num_heads": num_heads,
    }


CAPSTONE = _spec("causal-self-attention-rope")


@pytest.mark.parametrize("case", CAPSTONE.cases, ids=[c.name for c in CAPSTONE.cases])
def test_capstone_without_rope_is_multihead_attention(case: Any) -> None:
    inputs = case.inputs
    x = torch.as_tensor(inputs["x"], dtype=torch.float64)
    t, d_model = x.shape[1], x.shape[2]
    module = torch.nn.MultiheadAttention(d_model, inputs["num_heads"], batch_first=True).double()
    state = {
        "in_proj_weight": inputs["in_proj_weight"],
        "in_proj_bias": inputs["in_proj_bias"],
        "out_proj.weight": inputs["out_proj_weight"],
        "out_proj.bias": inputs["out_proj_bias"],
    }
    module.load_state_dict({k: torch.as_tensor(v, dtype=torch.float64) for k, v in state.items()})
    padding = torch.arange(t)[None, :] >= torch.as_tensor(inputs["lengths"])[:, None]
    future = torch.ones(t, t, dtype=torch.bool).triu(diagonal=1)  # True = blocked, as MHA wants
    with torch.no_grad():
        expected, _ = module(x, x, x, key_padding_mask=padding, attn_mask=future)
    got = CAPSTONE.reference()(**inputs, rope_on=False)
    np.testing.assert_allclose(got, expected.numpy(), rtol=1e-10, atol=1e-12)
    with_rope = CAPSTONE.reference()(**inputs)
    if t == 1:  # position 0: RoPE turns nothing, the graded output is the module's
        np.testing.assert_allclose(with_rope, got, rtol=0, atol=0)
    else:  # a case where RoPE changes nothing could not tell a missing rotation
        assert not np.allclose(with_rope, got, rtol=1e-4, atol=1e-4)


def test_decoding_with_a_cache_gives_the_full_sequence_outputs() -> None:
    reference = _module("kv-cache-decoding", "reference")
    rng = np.random.default_rng(53)
    b, t, d_model = 3, 10, 16
    layer = _layer(rng, d_model, 4)
    x = rng.standard_normal((b, t, d_model))
    pad = np.array([0, 2, 6])
    with np.errstate(invalid="ignore"):  # padding queries see no key: NaN rows, never used
        full, k, v = reference.full_sequence_attention(x, pad, **layer)
    start = int(pad.max())
    for c in range(start, t):  # one token at a time, each cache that of the tokens before
        step = reference.decode_with_cache(x[:, c : c + 1], k[:, :, :c], v[:, :, :c], pad, **layer)
        np.testing.assert_allclose(step[:, 0], full[:, c], rtol=1e-10, atol=1e-12)
    chunk = reference.decode_with_cache(
        x[:, start:], k[:, :, :start], v[:, :, :start], pad, **layer
    )
    np.testing.assert_allclose(chunk, full[:, start:], rtol=1e-10, atol=1e-12)
    capstone = CAPSTONE.reference()
    for row in range(b):  # the real tokens alone, right after one another: the capstone's layer
        real = x[row : row + 1, pad[row] :]
        alone = capstone(real, np.array([real.shape[1]]), **layer)
        np.testing.assert_allclose(alone[0], full[row, pad[row] :], rtol=1e-9, atol=1e-10)


def test_kv_cache_cases_hold_the_full_sequence_keys_and_values() -> None:
    cases = _module("kv-cache-decoding", "cases")
    reference = _module("kv-cache-decoding", "reference")
    rng = np.random.default_rng(7)
    weights = cases._layer(rng, 16)
    prompt = rng.standard_normal((3, 6, 16))
    pad = np.array([0, 3, 6])
    k_cache, v_cache = cases._cache(prompt, pad, weights, 4)
    with np.errstate(invalid="ignore"):
        _, k, v = reference.full_sequence_attention(prompt, pad, **weights, num_heads=4)
    np.testing.assert_allclose(k_cache, k, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(v_cache, v, rtol=1e-12, atol=1e-12)


PADDING = _spec("key-padding-mask")


def test_key_padding_reference_has_its_properties() -> None:
    named = [c for c in PADDING.cases if c.property]
    assert {c.property for c in named} == set(PADDING.properties)
    func = PADDING.reference()
    for case in PADDING.cases:
        output = func(**case.inputs)
        for check in PADDING.properties.values():
            assert check(dict(case.inputs), output) is None, case.name


def test_key_padding_properties_name_the_broken_weight() -> None:
    inputs = {"scores": np.zeros((2, 1, 3, 3)), "lengths": np.array([3, 2]), "causal": 0}
    right = PADDING.reference()(**inputs)
    leaky = right.copy()
    leaky[1, 0, 2] = [0.25, 0.25, 0.5]  # query 2 of sequence 1 gives weight to padding key 2
    sentence = PADDING.properties["hidden_keys_get_zero_weight"](inputs, leaky)
    assert sentence is not None and sentence.startswith("weights[1, 0, 2, 2] = 0.5, but key 2")
    short = right * np.array([1.0, 1.0, 0.5])[None, None, :, None]
    sentence = PADDING.properties["rows_sum_to_one"](inputs, short)
    assert sentence is not None
    assert sentence.startswith("The weights of query 2 (sequence 0, head 0) sum to 0.5")
