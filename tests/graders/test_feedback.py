"""Teaching feedback: every diagnosis with its exact wording, and hidden tests that never leak
expected values."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest

from graders.judging.compare import compare
from graders.judging.feedback import (
    Feedback,
    describe,
    fmt_index,
    fmt_number,
    fmt_shape,
    match_misconception,
)

RNG = np.random.default_rng(2024)
TABLE = RNG.standard_normal((4, 8))  # a (4, 8) table of distinctive values
POS_EMBED = RNG.standard_normal((32, 8))


def _both(expected: np.ndarray, received: np.ndarray, **kw: float) -> tuple[Feedback, Feedback]:
    """Visible and hidden feedback; the hidden one is checked for leaks on the way."""
    c = compare(expected, received, **kw)
    visible = describe(c, expected, received, hidden=False)
    hidden = describe(c, expected, received, hidden=True)
    _assert_no_leak(hidden, expected)
    assert "\n" not in visible.summary and visible.category == hidden.category
    return visible, hidden


def _assert_no_leak(feedback: Feedback, expected: np.ndarray) -> None:
    text = " ".join([feedback.summary, *feedback.details])
    assert not re.search(r"at index|row \d|about \d|expected [-\d]|got [-\d]", text), text
    finite = expected[np.isfinite(expected)] if expected.dtype.kind == "f" else expected
    for value in np.unique(finite.astype(np.float64)):
        number = fmt_number(float(value))
        if not re.fullmatch(r"-?\d+", number):  # whole numbers also appear in shapes, counts
            assert not re.search(rf"(?<![\d.]){re.escape(number)}(?!\d)", text), (number, text)


# ---------------------------------------------------------------- formatting


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0.012345, "0.01235"),
        (0.7432, "0.7432"),
        (0.73090001, "0.7309"),
        (50.0, "50"),
        (-2.0, "-2"),
        (123456.0, "1.235e5"),
        (1.5e-5, "1.5e-5"),
        (0.0, "0"),
        (-0.0, "0"),
        (float("nan"), "nan"),
        (float("inf"), "inf"),
        (float("-inf"), "-inf"),
    ],
)
def test_numbers_use_four_significant_digits(value: float, text: str) -> None:
    assert fmt_number(value) == text


def test_shapes_and_indices() -> None:
    assert fmt_shape((4, 8)) == "(4, 8)" and fmt_shape((32,)) == "(32,)" and fmt_shape(()) == "()"
    assert fmt_index((2, 5)) == "(2, 5)" and fmt_index((7,)) == "7"


# ---------------------------------------------------------------- shape diagnoses


def test_passed_comparison() -> None:
    c = compare(TABLE, TABLE.copy())
    assert describe(c, TABLE, TABLE, hidden=True) == Feedback(
        "all 32 values match the expected output", [], "ok"
    )


def test_transposed_table() -> None:
    visible, hidden = _both(TABLE, TABLE.T.copy())
    expected = "expected shape (4, 8), got (8, 4): the axes look swapped (did you transpose?)"
    assert visible.summary == hidden.summary == expected
    assert visible.category == "transposed" and visible.details == []


def test_swapped_axes_in_three_dimensions() -> None:
    batch = RNG.standard_normal((2, 3, 4))
    visible, _ = _both(batch, batch.transpose(0, 2, 1).copy())
    assert visible.summary.endswith("(2, 4, 3): axes 1 and 2 look swapped (did you transpose?)")
    cycled, _ = _both(batch, batch.transpose(1, 2, 0).copy())
    assert "np.transpose(out, (2, 0, 1)) would give the expected output" in cycled.summary
    fixed = np.transpose(batch.transpose(1, 2, 0), (2, 0, 1))
    assert np.array_equal(fixed, batch)


def test_same_sizes_in_another_order_without_matching_values() -> None:
    visible, _ = _both(TABLE, RNG.standard_normal((8, 4)))
    assert visible.category == "axes_order"
    assert visible.summary.endswith(
        "the sizes are right but in another order: check your axis order"
    )


def test_missing_flatten() -> None:
    flat = POS_EMBED[:4].reshape(-1)
    visible, hidden = _both(flat, POS_EMBED[:4].copy())
    assert visible.summary == (
        "expected shape (32,), got (4, 8): the values are right but not flat: "
        "flatten it with .reshape(-1)"
    )
    assert visible.category == hidden.category == "missing_flatten"


def test_flattened_when_a_table_was_expected_and_other_reshapes() -> None:
    flat, _ = _both(TABLE, TABLE.reshape(-1))
    assert flat.summary.endswith("the values are right but flattened: reshape it to (4, 8)")
    other, _ = _both(TABLE, TABLE.reshape(2, 16))
    assert other.category == "reshape" and other.summary.endswith("reshape to (4, 8)")
    swapped, _ = _both(TABLE.reshape(-1), TABLE.T.copy())
    assert swapped.summary.endswith(
        "the axes look swapped and not flattened: use .T before .reshape(-1)"
    )


def test_single_row_instead_of_a_slice() -> None:
    t = 4
    visible, hidden = _both(POS_EMBED[:t], POS_EMBED[t])  # pos_embed[T] vs pos_embed[:T]
    expected = (
        "expected shape (4, 8), got (8,): you returned a single row (table[T]) "
        "instead of a slice (table[:T])"
    )
    assert visible.summary == hidden.summary == expected
    assert visible.category == "single_row" and visible.details == []


def test_single_row_that_is_one_of_the_expected_rows() -> None:
    visible, hidden = _both(POS_EMBED[:4], POS_EMBED[2])
    assert visible.details == ["it equals row 2 of the expected output"]
    assert hidden.details == []


def test_single_entry_of_a_batch() -> None:
    batch = RNG.standard_normal((3, 4, 8))
    visible, _ = _both(batch, batch[0])
    assert visible.category == "single_row"
    assert "one entry of the first axis instead of all 3" in visible.summary


def test_extra_batch_axis() -> None:
    visible, hidden = _both(TABLE, TABLE[None])
    assert (
        visible.summary
        == hidden.summary
        == (
            "expected shape (4, 8), got (1, 4, 8): you added an extra leading axis of size 1: "
            "remove it with out[0] or out.squeeze(0)"
        )
    )
    assert visible.category == "extra_batch_axis"
    inner, _ = _both(TABLE, TABLE[:, :, None])
    assert inner.summary.endswith(
        "extra axis at position 2 of size 1: remove it with out.squeeze(2)"
    )
    wide, _ = _both(TABLE, np.stack([TABLE, TABLE, TABLE]))
    assert wide.summary.endswith(
        "an extra leading axis of size 3; the expected output has one axis fewer"
    )


def test_missing_batch_axis() -> None:
    visible, _ = _both(TABLE[None], TABLE.copy())
    assert visible.summary == (
        "expected shape (1, 4, 8), got (4, 8): the leading batch axis (of size 1) is missing: "
        "add it back with out[None] (NumPy/JAX) or out.unsqueeze(0) (torch)"
    )
    assert visible.category == "missing_batch_axis"
    inner, _ = _both(TABLE[:, None], TABLE.copy())
    assert "axis 1 (of size 1) is missing: add it back with np.expand_dims(out, 1)" in inner.summary


def test_one_position_too_many() -> None:
    visible, hidden = _both(POS_EMBED[:4], POS_EMBED[:5])
    assert visible.summary == (
        "expected shape (4, 8), got (5, 8): axis 0 has length 5 instead of 4: one position too "
        "many (check the end of your slice or range: table[:T] gives T rows)"
    )
    assert (
        visible.details == hidden.details == ["the first 4 match: the extra position is at the end"]
    )
    start, _ = _both(POS_EMBED[1:5], POS_EMBED[:5])
    assert start.details == ["the last 4 match: the extra position is at the start"]


def test_one_position_too_few() -> None:
    visible, _ = _both(POS_EMBED[:5], POS_EMBED[1:5])
    assert "axis 0 has length 4 instead of 5: one position too few" in visible.summary
    assert visible.details == [
        "the others match: position 0 is missing (do your positions start at 1?)"
    ]
    end, _ = _both(POS_EMBED[:5], POS_EMBED[:4])
    assert end.details == ["the others match: the last position is missing"]
    other_axis, _ = _both(TABLE, TABLE[:, :7])
    assert "axis 1 has length 7 instead of 8" in other_axis.summary


def test_scalar_instead_of_array_and_back() -> None:
    visible, _ = _both(TABLE, np.array(TABLE.sum()))
    assert visible.summary == (
        "expected shape (4, 8), got (): you returned a single number instead of an array "
        "(did you index one element, or call .sum(), .mean() or .item()?)"
    )
    assert visible.category == "scalar_instead_of_array"
    back, _ = _both(np.array(3.5), np.array([3.5]))
    assert back.category == "array_instead_of_scalar"
    assert (
        back.summary
        == "expected shape (), got (1,): you returned an array where one number is expected"
    )


def test_unrelated_shapes() -> None:
    axes, _ = _both(TABLE, RNG.standard_normal((2, 3, 5)))
    assert (
        axes.summary
        == "expected shape (4, 8), got (2, 3, 5): your output has 3 axes, the expected one has 2"
    )
    sizes, _ = _both(TABLE, RNG.standard_normal((3, 6)))
    assert sizes.category == "shape"


# ---------------------------------------------------------------- dtype, NaN, Inf


@pytest.mark.parametrize(
    ("expected", "received", "summary"),
    [
        (TABLE, TABLE.astype(np.int64), "expected float values, got int64: integers cannot hold "
         "these values: build the output as floats (e.g. dtype=np.float32) and avoid integer "
         "division (//)"),
        (TABLE, TABLE > 0, "expected float values, got bool: you returned True/False values: did "
         "you return a comparison (==, <) instead?"),
        (np.arange(4), np.arange(4) + 0.5, "expected integer values, got float64: some values "
         "have fractional parts, but these are whole-number ids"),
        (np.arange(4), np.arange(4) > 1, "expected integer values, got bool: you returned "
         "True/False values: did you return a comparison (==, <) instead?"),
        (TABLE > 0, TABLE, "expected bool values, got float64: return the comparison itself (for "
         "example mask = x > 0)"),
    ],
)  # fmt: skip
def test_dtype_class_wording(expected: np.ndarray, received: np.ndarray, summary: str) -> None:
    visible, hidden = _both(expected, received)
    assert visible.summary == hidden.summary == summary
    assert visible.category == "dtype"


def test_nan_wording() -> None:
    received = TABLE.copy()
    received[1, 3] = received[2, 0] = np.nan
    visible, hidden = _both(TABLE, received)
    assert (
        visible.summary
        == hidden.summary
        == (
            "your output contains NaN (not a number) in 2 of 32 values: look for 0/0, the log or "
            "sqrt of a negative number, or an uninitialised array (np.empty / torch.empty)"
        )
    )
    assert visible.details == ["the first is at index (1, 3)"] and hidden.details == []
    assert visible.category == "nan"


def test_expected_nan_not_reproduced() -> None:
    expected = np.array([1.5, np.nan])
    visible, _ = _both(expected, np.array([1.5, 2.0]))
    assert visible.summary == (
        "the expected output has NaN (not a number) in places where yours has ordinary numbers"
    )


def test_inf_wording() -> None:
    received = TABLE.copy()
    received[0, 5] = -np.inf
    visible, hidden = _both(TABLE, received)
    assert visible.summary.startswith("your output contains infinite values (inf) in 1 of 32")
    assert "division by zero" in visible.summary and visible.category == "inf"
    assert visible.details == ["the first is at index (0, 5)"] and hidden.details == []
    sign, _ = _both(np.array([np.inf, 1.0]), np.array([-np.inf, 1.0]))
    assert sign.summary.startswith("your output contains infinite values (inf) in 1 of 2")


# ---------------------------------------------------------------- value diagnoses


def test_values_wrong_exact_numbers() -> None:
    expected = np.zeros((4, 8))
    expected[2, 5] = 0.0123
    received = expected.copy()
    received[2, 5] = 0.7432
    received[0, 1] = 0.5
    visible, hidden = _both(expected, received)
    assert visible.summary == "2 of 32 values differ from the expected output"
    assert visible.details == [
        "largest difference 0.7309 at index (2, 5): expected 0.0123, got 0.7432; "
        "first mismatch at index (0, 1); 2 of 32 values differ"
    ]
    assert hidden.summary == visible.summary and hidden.details == []
    assert visible.category == "values"


def test_values_wrong_for_ids_and_scalars() -> None:
    ids = np.array([3, 4, 5, 6])
    visible, _ = _both(ids, np.array([3, 4, 9, 6]))
    assert visible.details[0].startswith("largest difference 4 at index 2: expected 5, got 9")
    scalar, _ = _both(np.array(0.25), np.array(0.5))
    assert scalar.details == ["expected 0.25, got 0.5 (difference 0.25)"]


def test_sign_flip() -> None:
    visible, hidden = _both(TABLE, -TABLE)
    assert visible.summary == (
        "32 of 32 values differ from the expected output: the values have the opposite sign: "
        "look for a missing or extra minus sign"
    )
    assert visible.category == hidden.category == "sign_flip"


def test_stddev_one_instead_of_0_02() -> None:
    noise = RNG.standard_normal((32, 8))
    visible, hidden = _both(0.02 * noise, 1.0 * noise)
    assert visible.category == "scaled"
    assert "multiplied by about 50 (for example stddev 1.0 instead of 0.02" in visible.summary
    assert hidden.summary.endswith(
        "multiplied by a constant factor: check scale factors such as the initialiser's stddev"
    )
    assert "50" not in hidden.summary


def test_missing_sqrt_scale_is_reported_as_a_ratio() -> None:
    visible, _ = _both(TABLE * 8.0, TABLE)
    assert "multiplied by about 0.125" in visible.summary


def test_all_zeros() -> None:
    visible, _ = _both(TABLE, np.zeros_like(TABLE))
    assert visible.category == "all_zero"
    assert visible.summary.endswith(
        "your output is all zeros: did you return the array before filling it in?"
    )


def test_square_output_transposed() -> None:
    square = RNG.standard_normal((6, 6))
    visible, _ = _both(square, square.T.copy())
    assert visible.category == "transposed" and "(a square shape hides it)" in visible.summary


def test_rows_shifted_by_one_position() -> None:
    visible, hidden = _both(POS_EMBED[:4], POS_EMBED[1:5])
    assert visible.summary == (
        "32 of 32 values differ from the expected output: looks shifted by one position: "
        "are your positions 1-based?"
    )
    assert visible.details[1] == "along axis 0, your entry i equals the expected entry i + 1"
    assert hidden.details == [] and hidden.category == "shifted"
    back, _ = _both(POS_EMBED[1:5], POS_EMBED[:4])
    assert back.category == "shifted_back" and "the other way" in back.summary


def _gather(positions: np.ndarray, table: np.ndarray, offset: int = 0) -> np.ndarray:
    ids = np.clip(positions.astype(np.int64) + offset, 0, len(table) - 1)  # JAX clamps
    return table[ids]


def test_one_based_gather_is_shifted_along_the_time_axis() -> None:
    positions = np.array([[0, 1, 2, 3], [0, 1, 2, 3]], dtype=np.float32)
    table = RNG.standard_normal((8, 4))
    visible, _ = _both(_gather(positions, table), _gather(positions, table, 1))
    assert visible.category == "shifted"
    assert visible.details[1] == "along axis 1, your entry i equals the expected entry i + 1"


def test_shift_is_not_claimed_when_the_expected_output_is_constant_along_the_axis() -> None:
    expected = np.repeat(TABLE[:1], 4, axis=0)
    received = expected.copy()
    received[3] += 1.0
    visible, _ = _both(expected, received)
    assert visible.category == "values"


def _sinusoid(max_len: int, d_model: int) -> tuple[np.ndarray, np.ndarray]:
    angle = np.arange(max_len)[:, None] / 10000 ** (np.arange(0, d_model, 2) / d_model)
    return np.sin(angle), np.cos(angle)


def test_concatenated_instead_of_interleaved_sin_cos() -> None:
    sin, cos = _sinusoid(16, 8)
    interleaved = np.stack([sin, cos], axis=-1).reshape(16, 8)
    visible, hidden = _both(interleaved, np.concatenate([sin, cos], axis=1))
    assert visible.category == hidden.category == "sincos_concatenated"
    assert visible.summary.endswith(
        "all sines come first, then all cosines; the expected output interleaves them: sin in "
        "the even columns, cos in the odd ones (pe[:, 0::2] = sin, pe[:, 1::2] = cos)"
    )


def test_interleaved_instead_of_concatenated_and_swapped() -> None:
    sin, cos = _sinusoid(16, 8)
    interleaved = np.stack([sin, cos], axis=-1).reshape(16, 8)
    visible, _ = _both(np.concatenate([sin, cos], axis=1), interleaved)
    assert visible.category == "sincos_interleaved"
    swapped = np.stack([cos, sin], axis=-1).reshape(16, 8)
    visible, _ = _both(interleaved, swapped)
    assert visible.category == "sincos_swapped"
    assert visible.summary.endswith(
        "sin and cos look swapped: the even columns should hold sin, the odd cos"
    )


def test_hidden_feedback_never_shows_expected_numbers() -> None:
    cases: list[tuple[np.ndarray, np.ndarray]] = [
        (TABLE, TABLE + 0.5),
        (TABLE, TABLE * 3.0),
        (POS_EMBED[:4], POS_EMBED[2]),
        (TABLE, np.where(TABLE > 1, np.nan, TABLE)),
        (np.array(0.37), np.array(0.5)),
    ]
    for expected, received in cases:
        c = compare(expected, received)
        hidden = describe(c, expected, received, hidden=True)
        _assert_no_leak(hidden, expected)
        assert not re.search(r"\(\d+, \d+\)", " ".join(hidden.details))
        if c.reason == "values_mismatch":  # the leak check itself is not vacuous
            with pytest.raises(AssertionError):
                _assert_no_leak(describe(c, expected, received, hidden=False), expected)


def test_describe_takes_only_plain_arrays() -> None:
    class Sub(np.ndarray):
        pass

    c = compare(TABLE, TABLE)
    with pytest.raises(TypeError, match="plain numpy arrays"):
        describe(c, TABLE, TABLE.view(Sub), hidden=False)


# ---------------------------------------------------------------- misconceptions


def test_match_misconception_returns_the_first_close_candidate() -> None:
    positions = np.array([[3, 4, 5, 6], [0, 1, 2, 3]], dtype=np.float32)
    table = RNG.standard_normal((8, 4)).astype(np.float32)
    received = _gather(positions, table, 1)
    candidates: list[tuple[str, Any]] = [
        ("ignores-given-positions", np.broadcast_to(table[:4], (2, 4, 4)).copy()),
        ("wrong-shape", received[0]),
        ("one-based-positions", _gather(positions, table, 1).astype(np.float64)),
        ("also-one-based", _gather(positions, table, 1)),
    ]
    assert match_misconception(received, candidates, rtol=1e-5, atol=1e-6) == "one-based-positions"
    assert match_misconception(_gather(positions, table), candidates, rtol=1e-5, atol=1e-6) is None
    assert match_misconception(received, [], rtol=1e-5, atol=1e-6) is None


def test_match_misconception_respects_tolerance_and_nan() -> None:
    output = np.array([1.0, np.nan])
    assert (
        match_misconception(np.array([1.0 + 1e-3, np.nan]), [("m", output)], rtol=0, atol=1e-2)
        == "m"
    )
    assert (
        match_misconception(np.array([1.0 + 1e-3, np.nan]), [("m", output)], rtol=0, atol=1e-4)
        is None
    )
    assert match_misconception(np.array([1.0, 2.0]), [("m", output)], rtol=0, atol=1.0) is None


def test_match_misconception_can_treat_any_mask_value_alike() -> None:
    """A mistake declared with -1e9 also names -1e4, finfo.min or -1e30 when it says mask_below."""
    scores = np.array([[0.0, -np.inf, -np.inf], [-0.5, 0.0, -np.inf], [-1.0, -0.5, 0.0]])
    declared = np.where(np.isinf(scores), -1e9, scores)
    candidates: list[tuple[str, Any]] = [("finite-mask-value", declared)]
    masks = {"finite-mask-value": -1000.0}
    for fill in (-1e4, -1e30, float(np.finfo(np.float32).min), -float(np.finfo(np.float64).max)):
        received = np.where(np.isinf(scores), fill, scores)
        assert match_misconception(received, candidates) is None  # the plain rule misses it
        assert match_misconception(received, candidates, mask_below=masks) == "finite-mask-value"
    # Only masked entries are relaxed: a wrong value elsewhere is still not this mistake.
    wrong = np.where(np.isinf(scores), -1e4, scores + 0.25)
    assert match_misconception(wrong, candidates, mask_below=masks) is None
    # A fill that is not large is not a mask value.
    small = np.where(np.isinf(scores), -5.0, scores)
    assert match_misconception(small, candidates, mask_below=masks) is None


def test_off_by_one_without_a_matching_slice_still_explains() -> None:
    expected = np.arange(12.0).reshape(3, 4)
    received = np.full((4, 4), 7.5)
    comparison = compare(expected, received)
    feedback = describe(comparison, expected, received, hidden=False)
    assert "(4, 4)" in feedback.summary and feedback.details == []
