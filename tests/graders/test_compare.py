"""The fixed comparison policy: shape, dtype class, NaN/Inf, tolerance, and the default tolerance
that lets float32 solutions pass."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from graders.judging.compare import (
    DEFAULT_ATOL,
    DEFAULT_RTOL,
    Comparison,
    Reason,
    compare,
    dtype_class,
    values_close,
)

TABLE = np.arange(32, dtype=np.float64).reshape(4, 8) / 7.0


def _cmp(expected: Any, received: Any, **kw: float) -> Comparison:
    return compare(np.asarray(expected), np.asarray(received), **kw)


# ---------------------------------------------------------------- shape


def test_identical_arrays_pass_with_full_report() -> None:
    c = compare(TABLE, TABLE.copy())
    assert c.passed and c.reason == Reason.OK and c.reason.value == "ok"
    assert c.expected_shape == c.received_shape == (4, 8)
    assert c.expected_dtype == c.received_dtype == "float64"
    assert (c.size, c.mismatch_count, c.first_mismatch) == (32, 0, None)
    assert c.max_abs_error == 0.0 and c.argmax_index == (0, 0)
    assert not c.has_nan and not c.has_inf
    assert (c.rtol, c.atol) == (DEFAULT_RTOL, DEFAULT_ATOL)


@pytest.mark.parametrize(
    ("expected", "received"),
    [
        (TABLE, TABLE.T.copy()),
        (TABLE, TABLE[None]),
        (TABLE, TABLE[:1]),  # would broadcast
        (TABLE[:1], TABLE),
        (np.array(1.0), np.array([1.0])),  # a scalar never equals an array
        (np.array([1.0]), np.array(1.0)),
        (np.ones((2, 3)), np.ones(6)),
        (np.zeros((0, 8)), np.zeros((0, 4))),
    ],
)
def test_shape_must_match_exactly(expected: np.ndarray, received: np.ndarray) -> None:
    c = compare(expected, received)
    assert not c.passed and c.reason == Reason.SHAPE_MISMATCH
    assert c.expected_shape == expected.shape and c.received_shape == received.shape
    assert c.max_abs_error is None and c.first_mismatch is None


def test_empty_arrays_of_equal_shape_pass() -> None:
    c = compare(np.zeros((0, 8)), np.zeros((0, 8), dtype=np.float32))
    assert c.passed and c.size == 0 and c.max_abs_error is None


def test_zero_dimensional_arrays_compare_as_values() -> None:
    assert compare(np.array(2.5), np.array(2.5, dtype=np.float32)).passed
    c = compare(np.array(2.5), np.array(3.0))
    assert c.reason == Reason.VALUES_MISMATCH and c.first_mismatch == () and c.argmax_index == ()


# ---------------------------------------------------------------- dtype class


@pytest.mark.parametrize(
    ("expected", "received", "ok"),
    [
        ("float64", "float16", True),
        ("float64", "float32", True),
        ("float32", "float64", True),
        ("float64", "int64", False),
        ("float64", "uint8", False),
        ("float64", "bool", False),
        ("int64", "int8", True),
        ("int64", "int16", True),
        ("int64", "int32", True),
        ("int32", "int64", True),
        ("int64", "uint8", True),
        ("int64", "float32", True),  # integral floats answer an id question
        ("int64", "bool", False),
        ("bool", "bool", True),
        ("bool", "int64", False),
        ("bool", "uint8", False),
        ("bool", "float32", False),
        ("complex128", "complex128", False),
    ],
)
def test_dtype_classes(expected: str, received: str, ok: bool) -> None:
    values = np.array([0, 1, 1, 0])
    c = compare(values.astype(expected), values.astype(received))
    assert c.passed is ok
    assert c.reason == (Reason.OK if ok else Reason.DTYPE_MISMATCH)


def test_dtype_class_names() -> None:
    names = [dtype_class(np.dtype(d)) for d in ("bool", "int8", "uint8", "float16", "complex64")]
    assert names == ["bool", "integer", "integer", "float", "other"]
    assert dtype_class(np.dtype("U3")) == dtype_class(np.dtype(object)) == "other"


def test_float_answer_to_an_id_question_must_be_whole_numbers() -> None:
    ids = np.array([[3, 4], [0, 7]])
    assert compare(ids, ids.astype(np.float32)).passed
    c = compare(ids, ids + np.float32(0.5))
    assert c.reason == Reason.DTYPE_MISMATCH
    wrong = compare(ids, np.array([[3.0, 5.0], [0.0, 7.0]]))
    assert wrong.reason == Reason.VALUES_MISMATCH and wrong.first_mismatch == (0, 1)


def test_float_id_answer_with_nan_is_a_nan_mismatch() -> None:
    c = compare(np.array([1, 2]), np.array([1.0, np.nan]))
    assert c.reason == Reason.NAN_MISMATCH and c.has_nan


def test_integers_compare_exactly_whatever_the_tolerance() -> None:
    c = compare(np.array([3, 4]), np.array([3, 5]), rtol=0.5, atol=10.0)
    assert c.reason == Reason.VALUES_MISMATCH and c.mismatch_count == 1
    big = np.array([2**53 + 1], dtype=np.int64)
    assert not compare(big, big - 1).passed  # float64 could not tell them apart
    assert compare(big, big.copy()).passed
    assert not compare(np.array([True, False]), np.array([True, True])).passed


# ---------------------------------------------------------------- NaN and Inf


def test_nan_where_expected_is_finite_fails_even_with_huge_tolerance() -> None:
    received = TABLE.copy()
    received[1, 2] = np.nan
    c = compare(TABLE, received, rtol=1e9, atol=1e9)
    assert not c.passed and c.reason == Reason.NAN_MISMATCH
    assert c.has_nan and not c.has_inf
    assert c.first_mismatch == (1, 2) and c.mismatch_count == 1


def test_nan_matches_only_nan_in_the_same_place() -> None:
    expected = np.array([1.0, np.nan, 3.0])
    assert compare(expected, np.array([1.0, np.nan, 3.0], dtype=np.float32)).passed
    c = compare(expected, np.array([1.0, 2.0, 3.0]))
    assert c.reason == Reason.NAN_MISMATCH and not c.has_nan
    moved = compare(expected, np.array([np.nan, 2.0, 3.0]))
    assert moved.reason == Reason.NAN_MISMATCH and moved.mismatch_count == 2


@pytest.mark.parametrize(
    ("received", "ok"),
    [
        ([1.0, np.inf, -np.inf], True),
        ([1.0, -np.inf, -np.inf], False),  # wrong sign
        ([1.0, 1e308, -np.inf], False),  # finite where inf expected
        ([np.inf, np.inf, -np.inf], False),  # inf where finite expected
    ],
)
def test_inf_must_match_in_sign_and_position(received: list[float], ok: bool) -> None:
    c = compare(np.array([1.0, np.inf, -np.inf]), np.array(received))
    assert c.passed is ok
    assert c.reason == (Reason.OK if ok else Reason.INF_MISMATCH)


def test_nan_takes_priority_over_inf_and_values() -> None:
    c = compare(np.array([1.0, 2.0, 3.0]), np.array([5.0, np.inf, np.nan]))
    assert c.reason == Reason.NAN_MISMATCH and c.mismatch_count == 3
    assert c.has_nan and c.has_inf and c.max_abs_error == 4.0 and c.argmax_index == (0,)


def test_overflowing_differences_do_not_warn_or_pass() -> None:
    with np.errstate(all="raise"):
        c = compare(np.array([-1e308]), np.array([1e308]))
    assert c.reason == Reason.VALUES_MISMATCH and c.max_abs_error == math.inf


# ---------------------------------------------------------------- tolerance


def test_tolerance_formula_boundary() -> None:
    # allowed = atol + rtol * |e| = 0.25 + 0.5 * 1.0 = 0.75, exact in binary
    assert _cmp([1.0], [1.75], rtol=0.5, atol=0.25).passed
    assert _cmp([1.0], [0.25], rtol=0.5, atol=0.25).passed
    assert not _cmp([1.0], [np.nextafter(1.75, 2.0)], rtol=0.5, atol=0.25).passed
    # relative part scales with |expected|, not |received|
    assert _cmp([-4.0], [-2.0], rtol=0.5, atol=0.0).passed
    assert not _cmp([-2.0], [-4.0], rtol=0.5, atol=0.0).passed


def test_tolerance_is_computed_in_float64() -> None:
    expected = np.array([1.0 + 2**-30])
    received = np.array([1.0], dtype=np.float32)
    assert not compare(expected, received, rtol=0.0, atol=0.0).passed
    assert compare(expected, received, rtol=0.0, atol=2**-29).passed


def test_mismatch_statistics() -> None:
    received = TABLE.copy()
    received[0, 1] += 0.5
    received[2, 5] += 0.75
    received[3, 7] -= 0.25
    c = compare(TABLE, received)
    assert not c.passed and c.reason == Reason.VALUES_MISMATCH
    assert c.mismatch_count == 3 and c.size == 32
    assert c.max_abs_error == pytest.approx(0.75) and c.argmax_index == (2, 5)
    assert c.first_mismatch == (0, 1)
    assert all(type(i) is int for i in c.argmax_index + c.first_mismatch)


@pytest.mark.parametrize(
    ("rtol", "atol"), [(-1.0, 0.0), (0.0, -1e-9), (math.nan, 0.0), (0, math.inf)]
)
def test_bad_tolerances_are_a_programming_error(rtol: float, atol: float) -> None:
    with pytest.raises(ValueError, match="tolerances"):
        compare(TABLE, TABLE, rtol=rtol, atol=atol)


# ---------------------------------------------------------------- only plain arrays


class _AlwaysEqual:
    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = None  # type: ignore[assignment]


class _Sub(np.ndarray):
    pass


@pytest.mark.parametrize("bad", [[1.0, 2.0], _AlwaysEqual(), np.arange(2.0).view(_Sub), 1.0])
def test_only_plain_ndarrays_are_compared(bad: Any) -> None:
    with pytest.raises(TypeError, match="plain numpy arrays"):
        compare(np.arange(2.0), bad)
    with pytest.raises(TypeError, match="plain numpy arrays"):
        compare(bad, np.arange(2.0))


def test_values_close_ignores_dtype_class_but_not_shape() -> None:
    assert values_close(np.array([1, 2]), np.array([1.0, 2.0]))
    assert not values_close(np.array([1.0, 2.0]), np.array([[1.0, 2.0]]))
    assert not values_close(np.array([1.0]), np.array([1 + 0j]))
    assert values_close(np.array([np.nan, np.inf]), np.array([np.nan, np.inf]))


# ---------------------------------------------------------------- the default tolerance


def _sinusoidal(max_len: int, d_model: int, dtype: Any, formula: str) -> np.ndarray:
    position = np.arange(max_len, dtype=dtype)[:, None]
    two_i = np.arange(0, d_model, 2, dtype=dtype)
    if formula == "power":
        angle = position / dtype(10000.0) ** (two_i / dtype(d_model))
    else:  # exp-log, as in the PyTorch tutorial
        angle = position * np.exp(two_i * dtype(-math.log(10000.0) / d_model))
    pe = np.zeros((max_len, d_model), dtype=dtype)
    pe[:, 0::2] = np.sin(angle)
    pe[:, 1::2] = np.cos(angle)
    return pe


REFERENCE = _sinusoidal(512, 64, np.float64, "power")


@pytest.mark.parametrize("formula", ["power", "exp"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_correct_sinusoidal_solutions_pass_with_default_tolerance(dtype: Any, formula: str) -> None:
    received = _sinusoidal(512, 64, dtype, formula)
    assert received.dtype == dtype
    c = compare(REFERENCE, received)
    assert c.passed, c


@pytest.mark.parametrize("formula", ["power", "exp"])
def test_default_tolerance_has_margin_for_wide_float32_encodings(formula: str) -> None:
    reference = _sinusoidal(512, 512, np.float64, "power")
    assert compare(reference, _sinusoidal(512, 512, np.float32, formula)).passed


def test_float32_error_is_real_so_tight_tolerances_would_reject_it() -> None:
    received = _sinusoidal(512, 64, np.float32, "power")
    c = compare(REFERENCE, received, rtol=1e-5, atol=1e-6)
    assert not c.passed and c.max_abs_error is not None and 1e-5 < c.max_abs_error < 1e-4


def test_default_tolerance_still_catches_real_mistakes() -> None:
    one_based = _sinusoidal(513, 64, np.float64, "power")[1:]
    assert compare(REFERENCE, one_based).reason == Reason.VALUES_MISMATCH
    half_precision = _sinusoidal(512, 64, np.float16, "power")
    assert not compare(REFERENCE, half_precision).passed
    rng = np.random.default_rng(0)
    learned = rng.standard_normal((32, 16))
    assert not compare(learned * 0.02, learned * 0.0201).passed  # stddev off by 0.5%
