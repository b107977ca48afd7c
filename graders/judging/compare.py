"""The fixed comparison policy, applied only to plain arrays rebuilt from bytes by the decoder.

Order of the rules: exact shape (no broadcasting; a scalar never equals an array), then dtype
class, then NaN/Inf, then tolerance.

Dtype classes: a float question accepts float16/32/64 only (an integer or bool answer means the
values were truncated or are comparisons); an integer question (ids) accepts any integer dtype,
and also a float answer whose finite values are all whole numbers (JAX and torch arithmetic turn
ids into floats; 3.0 is still id 3), while a fraction anywhere is a dtype mismatch; a bool
question accepts only bool; bool versus any number is a mismatch; every other kind (complex,
bfloat16, object) is a mismatch.

NaN rule: NaN must sit exactly where the expected output has NaN; NaN anywhere else fails and is
never "close". Inf rule: an infinity must match the expected one in sign and position.

Tolerance: finite values pass when abs(r - e) <= atol + rtol * abs(e), computed in float64.
Integer and bool questions are compared exactly (ids are never "nearly right").
DEFAULT_RTOL/DEFAULT_ATOL (1e-4 / 2e-4) let float32 solutions of float64 references pass: a
float32 sinusoidal encoding with max_len 512 is off by up to 5.5e-5 (angles up to 511 rad lose
about 3e-5 to float32 rounding), 1.3e-4 at max_len 2048; real mistakes (wrong stddev, shifted
positions, swapped sin/cos) differ by 1e-2 or more.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final

import numpy as np

Array = np.ndarray[Any, np.dtype[Any]]
DEFAULT_RTOL: Final = 1e-4
DEFAULT_ATOL: Final = 2e-4


class Reason(StrEnum):
    """Why a comparison failed, or `ok`; the values are stable report codes."""

    OK = "ok"
    SHAPE_MISMATCH = "shape_mismatch"
    DTYPE_MISMATCH = "dtype_mismatch"
    NAN_MISMATCH = "nan_mismatch"
    INF_MISMATCH = "inf_mismatch"
    VALUES_MISMATCH = "values_mismatch"


@dataclass(frozen=True)
class Comparison:
    """Everything feedback needs to explain a verdict, without keeping the arrays."""

    passed: bool
    reason: Reason
    expected_shape: tuple[int, ...]
    received_shape: tuple[int, ...]
    expected_dtype: str
    received_dtype: str
    rtol: float
    atol: float
    size: int = 0
    mismatch_count: int = 0
    max_abs_error: float | None = None
    argmax_index: tuple[int, ...] | None = None
    first_mismatch: tuple[int, ...] | None = None
    has_nan: bool = False
    has_inf: bool = False


def dtype_class(dtype: np.dtype[Any]) -> str:
    """Name the class a dtype belongs to: 'bool', 'integer', 'float' or 'other'."""
    return {"b": "bool", "i": "integer", "u": "integer", "f": "float"}.get(dtype.kind, "other")


def _plain(array: object, role: str) -> Array:
    if type(array) is not np.ndarray:
        raise TypeError(f"compare() takes plain numpy arrays; {role} is {type(array).__name__}")
    return array


def _check_tolerance(rtol: float, atol: float) -> None:
    if not (0.0 <= rtol < float("inf") and 0.0 <= atol < float("inf")):
        raise ValueError(f"tolerances must be finite and non-negative, got rtol={rtol} atol={atol}")


def _dtype_ok(expected: Array, received: Array) -> bool:
    want, got = dtype_class(expected.dtype), dtype_class(received.dtype)
    if "other" in (want, got):
        return False
    if want == "integer" and got == "float":
        finite = received[np.isfinite(received)]
        return bool(np.all(finite == np.round(finite)))
    return want == got


def _index(flat: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(int(i) for i in np.unravel_index(flat, shape))


def mismatch_mask(
    expected: Array, received: Array, *, rtol: float, atol: float, exact: bool = False
) -> tuple[Array, Array, Array, Array]:
    """Per-element verdicts for equal shapes: (bad, nan_bad, inf_bad, abs_error with -1 where
    either side is not finite); NaN and Inf follow the module's rules."""
    e = expected.astype(np.float64)
    r = received.astype(np.float64)
    with np.errstate(all="ignore"):
        e_nan, r_nan = np.isnan(e), np.isnan(r)
        nan_bad = e_nan != r_nan
        inf_bad = ~(e_nan | r_nan) & (np.isinf(e) | np.isinf(r)) & (e != r)
        finite = np.isfinite(e) & np.isfinite(r)
        error = np.where(finite, np.abs(r - e), -1.0)
        close = error <= (0.0 if exact else atol + rtol * np.abs(e))
    bad = nan_bad | inf_bad | (finite & ~close)
    return bad, nan_bad, inf_bad, error


def values_close(
    expected: Array, received: Array, *, rtol: float = DEFAULT_RTOL, atol: float = DEFAULT_ATOL
) -> bool:
    """True when shapes are equal and every value passes the NaN/Inf/tolerance rules."""
    if expected.shape != received.shape:
        return False
    if dtype_class(expected.dtype) == "other" or dtype_class(received.dtype) == "other":
        return False
    return not bool(mismatch_mask(expected, received, rtol=rtol, atol=atol)[0].any())


def compare(
    expected: Array, received: Array, *, rtol: float = DEFAULT_RTOL, atol: float = DEFAULT_ATOL
) -> Comparison:
    """Judge one received array against the trusted expected one with the fixed policy."""
    expected, received = _plain(expected, "expected"), _plain(received, "received")
    _check_tolerance(rtol, atol)
    floating = dtype_class(received.dtype) == "float"
    base: dict[str, Any] = {
        "expected_shape": tuple(int(d) for d in expected.shape),
        "received_shape": tuple(int(d) for d in received.shape),
        "expected_dtype": expected.dtype.name,
        "received_dtype": received.dtype.name,
        "rtol": rtol,
        "atol": atol,
        "size": int(received.size),
        "has_nan": floating and bool(np.isnan(received).any()),
        "has_inf": floating and bool(np.isinf(received).any()),
    }
    if expected.shape != received.shape:
        return Comparison(passed=False, reason=Reason.SHAPE_MISMATCH, **base)
    if not _dtype_ok(expected, received):
        return Comparison(passed=False, reason=Reason.DTYPE_MISMATCH, **base)
    exact = dtype_class(expected.dtype) != "float"
    bad, nan_bad, inf_bad, error = mismatch_mask(
        expected, received, rtol=rtol, atol=atol, exact=exact
    )
    if error.size and error.max() >= 0.0:
        flat = int(np.argmax(error))
        base["max_abs_error"] = float(error.flat[flat])
        base["argmax_index"] = _index(flat, expected.shape)
    if exact and dtype_class(received.dtype) != "float":
        bad = bad | (expected != received)  # integers compared exactly, beyond float64's 2**53
    count = int(bad.sum())
    if count:
        base["first_mismatch"] = _index(int(np.argmax(bad)), expected.shape)
    reason = Reason.OK
    if nan_bad.any():
        reason = Reason.NAN_MISMATCH
    elif inf_bad.any():
        reason = Reason.INF_MISMATCH
    elif count:
        reason = Reason.VALUES_MISMATCH
    return Comparison(passed=not count, reason=reason, mismatch_count=count, **base)
