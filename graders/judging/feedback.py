"""Plain-words diagnosis of a failed comparison, so a student stuck at 11 pm knows what to fix.

Hidden tests: `describe(..., hidden=True)` names the shapes and the kind of mistake only; it
never shows expected numbers, indices into the output, ratios or matching rows.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

from graders.judging.compare import (
    DEFAULT_ATOL,
    DEFAULT_RTOL,
    Array,
    Comparison,
    Reason,
    dtype_class,
    values_close,
)

Close = Callable[[Array, Array], bool]
Diagnosis = tuple[str, str, list[str]]  # (category, phrase, detail lines)

# Every sentence a student can read, in one place so the wording can be reviewed as a whole.
TEXT: dict[str, str] = {
    "scalar_instead_of_array": "you returned a single number instead of an array "
    "(did you index one element, or call .sum(), .mean() or .item()?)",
    "array_instead_of_scalar": "you returned an array where one number is expected",
    "swapped_2d": "the axes look swapped (did you transpose?)",
    "swapped_nd": "axes {0} and {1} look swapped (did you transpose?)",
    "reordered": "the axes are in the wrong order: np.transpose(out, {0}) would give the "
    "expected output (check your .transpose / .permute)",
    "missing_leading": "the leading batch axis (of size 1) is missing: add it back with "
    "out[None] (NumPy/JAX) or out.unsqueeze(0) (torch)",
    "missing_axis": "axis {0} (of size 1) is missing: add it back with np.expand_dims(out, {0}) "
    "or out.unsqueeze({0})",
    "single_row": "you returned a single row (table[T]) instead of a slice (table[:T])",
    "single_entry": "you returned one entry of the first axis instead of all {0} "
    "(did you index x[0] or x[T] instead of keeping the whole axis?)",
    "row_match": "it equals row {0} of the expected output",
    "extra_leading": "you added an extra leading axis of size 1: remove it with out[0] or "
    "out.squeeze(0)",
    "extra_axis": "you added an extra axis at position {0} of size 1: remove it with "
    "out.squeeze({0})",
    "extra_wide": "your output has an extra leading axis of size {0}; the expected output has "
    "one axis fewer",
    "not_flat": "the values are right but not flat: flatten it with .reshape(-1)",
    "flattened": "the values are right but flattened: reshape it to {0}",
    "reshape": "the values are right but arranged in another shape: reshape to {0}",
    "swapped_not_flat": "the axes look swapped and not flattened: use .T before .reshape(-1)",
    "too_many": "axis {0} has length {1} instead of {2}: one position too many (check the end "
    "of your slice or range: table[:T] gives T rows)",
    "too_few": "axis {0} has length {1} instead of {2}: one position too few (check the start "
    "and end of your slice or range: range(T) starts at 0)",
    "extra_at_end": "the first {0} match: the extra position is at the end",
    "extra_at_start": "the last {0} match: the extra position is at the start",
    "missing_last": "the others match: the last position is missing",
    "missing_first": "the others match: position 0 is missing (do your positions start at 1?)",
    "axes_order": "the sizes are right but in another order: check your axis order",
    "ndim": "your output has {0} axes, the expected one has {1}",
    "shape": "check how you build each axis of the output",
    "all_zero": "your output is all zeros: did you return the array before filling it in?",
    "sign_flip": "the values have the opposite sign: look for a missing or extra minus sign",
    "transposed": "your output is the expected one transposed (a square shape hides it): use .T",
    "shifted": "looks shifted by one position: are your positions 1-based?",
    "shifted_back": "looks shifted by one position the other way: did you start counting at -1?",
    "shift_detail": "along axis {0}, your entry i equals the expected entry {1}",
    "sincos_concatenated": "all sines come first, then all cosines; the expected output "
    "interleaves them: sin in the even columns, cos in the odd ones (pe[:, 0::2] = sin, "
    "pe[:, 1::2] = cos)",
    "sincos_interleaved": "you interleaved sin and cos column by column; the expected output "
    "puts all sines first, then all cosines",
    "sincos_swapped": "sin and cos look swapped: the even columns should hold sin, the odd cos",
    "scaled": "the values look like the expected ones multiplied by a constant factor: check "
    "scale factors such as the initialiser's stddev",
    "scaled_by": "the values look like the expected ones multiplied by about {0} (for example "
    "stddev 1.0 instead of 0.02, or a missing or extra scale factor such as sqrt(d_model))",
    "bool": "you returned True/False values: did you return a comparison (==, <) instead?",
    "int_for_float": "integers cannot hold these values: build the output as floats (e.g. "
    "dtype=np.float32) and avoid integer division (//)",
    "fraction_for_int": "some values have fractional parts, but these are whole-number ids",
    "number_for_bool": "return the comparison itself (for example mask = x > 0)",
    "ungradable": "values of dtype {0} cannot be graded; return {1} values",
    "nan": "look for 0/0, the log or sqrt of a negative number, or an uninitialised array "
    "(np.empty / torch.empty)",
    "inf": "look for a division by zero or an overflow (a huge exp, float16 above 65504)",
}


@dataclass(frozen=True)
class Feedback:
    """What a student reads: one sentence, optional detail lines, and a stable category id."""

    summary: str
    details: list[str] = field(default_factory=list)
    category: str = "ok"


def fmt_number(value: float) -> str:
    """Four significant digits, no padding: 0.0123, 50, 1.5e-5, nan, -inf."""
    if not math.isfinite(value):
        return "nan" if math.isnan(value) else "inf" if value > 0 else "-inf"
    if value == 0:
        return "0"
    mantissa, _, exponent = f"{value:.4g}".partition("e")
    return f"{mantissa}e{int(exponent)}" if exponent else mantissa


def fmt_shape(shape: tuple[int, ...]) -> str:
    """Shapes as NumPy prints them: (4, 8), (32,), ()."""
    return str(tuple(shape))


def fmt_index(index: tuple[int, ...]) -> str:
    """Indices as (2, 5); a 1-D index is just the number."""
    return str(index[0]) if len(index) == 1 else str(tuple(index))


def _value(array: Array, index: tuple[int, ...]) -> str:
    item = array[index]
    return fmt_number(float(item)) if dtype_class(array.dtype) == "float" else str(item.item())


def _f64(array: Array) -> Array:
    return array.astype(np.float64)


# ---------------------------------------------------------------- shape mismatches


def _permutation(e: Array, r: Array, close: Close) -> tuple[int, ...] | None:
    if r.ndim != e.ndim or not 2 <= r.ndim <= 5 or sorted(r.shape) != sorted(e.shape):
        return None
    for perm in itertools.permutations(range(r.ndim)):
        moved = np.transpose(r, perm)
        if moved.shape == e.shape and close(e, moved):
            return perm
    return None


def _axes_phrase(perm: tuple[int, ...]) -> str:
    moved = [i for i, p in enumerate(perm) if p != i]
    if len(perm) == 2:
        return TEXT["swapped_2d"]
    return TEXT["swapped_nd"].format(*moved) if len(moved) == 2 else TEXT["reordered"].format(perm)


def _inserted_axis(short: tuple[int, ...], long: tuple[int, ...]) -> int | None:
    """The position of a size-1 axis whose insertion into `short` gives `long`, if any."""
    if len(long) != len(short) + 1:
        return None
    return next(
        (k for k in range(len(long)) if long[k] == 1 and long[:k] + long[k + 1 :] == short), None
    )


def _one_row(e: Array, r: Array, close: Close, hidden: bool) -> Diagnosis | None:
    if e.ndim < 1 or r.shape != e.shape[1:] or e.shape[0] < 2:
        return None
    match = next((i for i in range(e.shape[0]) if close(e[i], r)), None)
    details = [] if hidden or match is None else [TEXT["row_match"].format(match)]
    phrase = TEXT["single_row"] if e.ndim == 2 else TEXT["single_entry"].format(e.shape[0])
    return "single_row", phrase, details


def _off_by_one(e: Array, r: Array, close: Close) -> Diagnosis | None:
    diff = [k for k in range(e.ndim) if e.shape[k] != r.shape[k]] if e.ndim == r.ndim else []
    if len(diff) != 1 or abs(e.shape[diff[0]] - r.shape[diff[0]]) != 1:
        return None
    k = diff[0]
    n_e, n_r = e.shape[k], r.shape[k]
    long, short = (r, e) if n_r > n_e else (e, r)
    n = min(n_e, n_r)
    head = close(np.take(long, range(n), axis=k), short)
    tail = close(np.take(long, range(1, n + 1), axis=k), short)
    if n_r > n_e:
        key = "extra_at_end" if head else "extra_at_start" if tail else ""
        extra = [TEXT[key].format(n)] if key else []
        return "off_by_one", TEXT["too_many"].format(k, n_r, n_e), extra
    key = "missing_last" if head else "missing_first" if tail else ""
    return "off_by_one", TEXT["too_few"].format(k, n_r, n_e), [TEXT[key]] if key else []


def _reshape(e: Array, r: Array, close: Close) -> Diagnosis | None:
    if e.size != r.size:
        return None
    if close(e, r.reshape(e.shape)):
        key = "not_flat" if e.ndim == 1 else "flattened" if r.ndim == 1 else "reshape"
        category = "missing_flatten" if e.ndim == 1 else "reshape"
        return category, TEXT[key].format(fmt_shape(e.shape)), []
    if e.ndim == 1 and r.ndim == 2 and close(e, r.T.reshape(-1)):
        return "missing_flatten", TEXT["swapped_not_flat"], []
    return None


def _shape_diagnosis(e: Array, r: Array, close: Close, hidden: bool) -> Diagnosis:
    if r.ndim == 0 or e.ndim == 0:
        key = "scalar_instead_of_array" if r.ndim == 0 else "array_instead_of_scalar"
        return key, TEXT[key], []
    if "other" in (dtype_class(e.dtype), dtype_class(r.dtype)):
        return "shape", TEXT["shape"], []
    perm = _permutation(e, r, close)
    if perm is not None:
        return "transposed", _axes_phrase(perm), []
    k = _inserted_axis(r.shape, e.shape)
    if k is not None:
        phrase = TEXT["missing_leading"] if k == 0 else TEXT["missing_axis"].format(k)
        return "missing_batch_axis", phrase, []
    found = _one_row(e, r, close, hidden)
    if found is not None:
        return found
    k = _inserted_axis(e.shape, r.shape)
    if k is not None:
        phrase = TEXT["extra_leading"] if k == 0 else TEXT["extra_axis"].format(k)
        return "extra_batch_axis", phrase, []
    if r.ndim == e.ndim + 1 and r.shape[1:] == e.shape:
        return "extra_batch_axis", TEXT["extra_wide"].format(r.shape[0]), []
    found = _reshape(e, r, close) or _off_by_one(e, r, close)
    if found is not None:
        return found
    if sorted(r.shape) == sorted(e.shape):
        return "axes_order", TEXT["axes_order"], []
    if r.ndim != e.ndim:
        return "shape", TEXT["ndim"].format(r.ndim, e.ndim), []
    return "shape", TEXT["shape"], []


# ---------------------------------------------------------------- value mismatches


def _shift(e: Array, r: Array, close: Close) -> tuple[str, int] | None:
    for axis in range(e.ndim):
        n = e.shape[axis]
        if n < 2:
            continue
        first, rest = range(n - 1), range(1, n)
        if close(np.take(e, first, axis=axis), np.take(e, rest, axis=axis)):
            continue  # the expected output does not change along this axis
        if close(np.take(e, rest, axis=axis), np.take(r, first, axis=axis)):
            return "shifted", axis
        if close(np.take(e, first, axis=axis), np.take(r, rest, axis=axis)):
            return "shifted_back", axis
    return None


def _sincos(e: Array, r: Array, close: Close) -> str | None:
    if e.ndim < 1 or e.shape[-1] < 4 or e.shape[-1] % 2:
        return None
    half = e.shape[-1] // 2
    if close(np.concatenate([e[..., 0::2], e[..., 1::2]], axis=-1), r):
        return "sincos_concatenated"
    if close(e[..., :half], r[..., 0::2]) and close(e[..., half:], r[..., 1::2]):
        return "sincos_interleaved"
    if close(e[..., 1::2], r[..., 0::2]) and close(e[..., 0::2], r[..., 1::2]):
        return "sincos_swapped"
    return None


def _scale(e: Array, r: Array, atol: float) -> float | None:
    """The constant k with r == k * e (a wrong stddev or scale factor), if there is one."""
    if not (np.isfinite(e).all() and np.isfinite(r).all()):
        return None
    denominator = float((e * e).sum())
    ratio = float((e * r).sum()) / denominator if denominator else 0.0
    if not math.isfinite(ratio) or ratio == 0 or abs(ratio - 1) < 1e-3:
        return None
    slack = atol * max(1.0, abs(ratio)) + 1e-3 * np.abs(ratio * e)
    return ratio if bool((np.abs(r - ratio * e) <= slack).all()) else None


def _pattern(e: Array, r: Array, close: Close, atol: float, hidden: bool) -> Diagnosis:
    """A recognisable mistake in same-shaped float64 arrays, or ('values', '', [])."""
    if not np.any(r) and np.any(e):
        return "all_zero", TEXT["all_zero"], []
    if close(-e, r):
        return "sign_flip", TEXT["sign_flip"], []
    if e.ndim == 2 and e.shape[0] == e.shape[1] > 1 and close(e.T, r):
        return "transposed", TEXT["transposed"], []
    shift = _shift(e, r, close)
    if shift is not None:
        step = "i + 1" if shift[0] == "shifted" else "i - 1"
        return shift[0], TEXT[shift[0]], [TEXT["shift_detail"].format(shift[1], step)]
    sincos = _sincos(e, r, close)
    if sincos is not None:
        return sincos, TEXT[sincos], []
    ratio = _scale(e, r, atol)
    if ratio is not None:
        return (
            "scaled",
            TEXT["scaled"] if hidden else TEXT["scaled_by"].format(fmt_number(ratio)),
            [],
        )
    return "values", "", []


def _numbers(c: Comparison, e: Array, r: Array) -> str:
    assert c.max_abs_error is not None and c.argmax_index is not None
    largest, at, first = fmt_number(c.max_abs_error), c.argmax_index, c.first_mismatch or ()
    if e.ndim == 0:
        return f"expected {_value(e, at)}, got {_value(r, at)} (difference {largest})"
    return (
        f"largest difference {largest} at index {fmt_index(at)}: expected {_value(e, at)}, "
        f"got {_value(r, at)}; first mismatch at index {fmt_index(first)}; "
        f"{c.mismatch_count} of {c.size} values differ"
    )


# ---------------------------------------------------------------- other reasons


def _dtype_phrase(want: str, got: str, received_dtype: str) -> str:
    if got == "bool":
        return TEXT["bool"]
    pairs = {("float", "integer"): "int_for_float", ("integer", "float"): "fraction_for_int"}
    key = pairs.get((want, got), "number_for_bool" if want == "bool" else "ungradable")
    return TEXT[key].format(received_dtype, want)


def _nonfinite(c: Comparison, e: Array, r: Array, hidden: bool) -> Feedback:
    nan = c.reason == Reason.NAN_MISMATCH
    bad = (np.isnan(r) & ~np.isnan(e)) if nan else (np.isinf(r) & ~(np.isinf(e) & (e == r)))
    name = "NaN (not a number)" if nan else "infinite values (inf)"
    category = "nan" if nan else "inf"
    if not bad.any():
        return Feedback(
            f"the expected output has {name} in places where yours has ordinary numbers",
            [],
            category,
        )
    summary = (
        f"your output contains {name} in {int(bad.sum())} of {c.size} values: {TEXT[category]}"
    )
    first = fmt_index(tuple(int(i) for i in np.argwhere(bad)[0])) if r.ndim else ""
    return Feedback(
        summary, [] if hidden or not first else [f"the first is at index {first}"], category
    )


def describe(comparison: Comparison, expected: Array, received: Array, *, hidden: bool) -> Feedback:
    """Explain a comparison in plain words; with hidden=True, never reveal expected values."""
    if type(expected) is not np.ndarray or type(received) is not np.ndarray:
        raise TypeError("describe() takes plain numpy arrays rebuilt by the decoder")
    c, e, r = comparison, expected, received

    def close(a: Array, b: Array) -> bool:
        return values_close(a, b, rtol=c.rtol, atol=c.atol)

    if c.passed:
        return Feedback(f"all {c.size} values match the expected output")
    if c.reason == Reason.SHAPE_MISMATCH:
        category, phrase, details = _shape_diagnosis(e, r, close, hidden)
        shapes = f"expected shape {fmt_shape(c.expected_shape)}, got {fmt_shape(c.received_shape)}"
        return Feedback(f"{shapes}: {phrase}", details, category)
    if c.reason == Reason.DTYPE_MISMATCH:
        want, got = dtype_class(e.dtype), dtype_class(r.dtype)
        phrase = _dtype_phrase(want, got, c.received_dtype)
        return Feedback(f"expected {want} values, got {c.received_dtype}: {phrase}", [], "dtype")
    if c.reason in (Reason.NAN_MISMATCH, Reason.INF_MISMATCH):
        return _nonfinite(c, _f64(e), _f64(r), hidden)
    category, phrase, extra = _pattern(_f64(e), _f64(r), close, c.atol, hidden)
    summary = f"{c.mismatch_count} of {c.size} values differ from the expected output"
    summary += f": {phrase}" if phrase else ""
    return Feedback(summary, [] if hidden else [_numbers(c, e, r), *extra], category)


def match_misconception(
    received: Array,
    candidates: list[tuple[str, Array]],
    *,
    rtol: float = DEFAULT_RTOL,
    atol: float = DEFAULT_ATOL,
    mask_below: Mapping[str, float] | None = None,
) -> str | None:
    """The id of the first known mistake whose output `received` reproduces (same shape, close).

    A mistake listed in `mask_below` counts every value at or below its threshold (-inf
    included) as one mask value, so a mistake declared with -1e9 also names -1e4 or finfo.min.
    """
    for mistake_id, output in candidates:
        threshold = (mask_below or {}).get(mistake_id)
        if threshold is not None:
            output, received_here = _as_mask(output, threshold), _as_mask(received, threshold)
        else:
            received_here = received
        if values_close(output, received_here, rtol=rtol, atol=atol):
            return mistake_id
    return None


def _as_mask(values: Array, threshold: float) -> Array:
    """`values` with every entry at or below `threshold` replaced by -inf (floats only)."""
    if dtype_class(values.dtype) != "float":
        return values
    wide = values.astype(np.float64)
    return np.where(wide <= threshold, -np.inf, wide)
