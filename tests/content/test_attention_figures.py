"""The attention course's figures: measured numbers with the properties the lessons state."""

from __future__ import annotations

import numpy as np
import pytest

from app.content.attention_figures import (
    head_weights,
    measure_scale,
    softmax_entropy,
    visible,
    widths_up_to,
)


def test_unscaled_score_variance_grows_like_d_k_and_the_scale_brings_it_back_to_one() -> None:
    m = measure_scale(256, 16)
    assert list(m.widths) == [1, 2, 4, 8, 16, 32, 64, 128, 256]
    assert np.allclose(m.variance / m.widths, 1.0, rtol=0.1)  # Var(q·k) = d_k
    assert np.allclose(m.variance_scaled, 1.0, rtol=0.1)  # Var(q·k / sqrt(d_k)) = 1


def test_without_the_scale_the_softmax_loses_entropy_and_with_it_stays_near_the_same() -> None:
    m = measure_scale(512, 16)
    assert np.all(np.diff(m.entropy) < 0)  # ever more peaked as d_k grows
    assert m.entropy[-1] < 0.2 < np.log(16)  # about one key out of 16 gets the weight
    assert np.ptp(m.entropy_scaled[2:]) < 0.05  # scaled: the same spread for every width


def test_entropy_is_zero_for_one_hot_and_ln_n_for_uniform() -> None:
    assert softmax_entropy(np.array([[1000.0, 0.0, 0.0]]))[0] == pytest.approx(0.0, abs=1e-12)
    assert softmax_entropy(np.zeros((1, 8)))[0] == pytest.approx(np.log(8))


@pytest.mark.parametrize(("length", "real"), [(1, 1), (6, 6), (10, 7), (32, 3)])
def test_head_weights_rows_sum_to_one_and_hidden_keys_get_exactly_zero(
    length: int, real: int
) -> None:
    weights = head_weights(length, real)
    assert weights.shape == (4, length, length)
    assert np.allclose(weights.sum(axis=-1), 1.0)
    hidden = ~visible(length, real)
    assert np.all(weights[:, hidden] == 0.0)  # exactly 0, not merely small
    assert np.all(weights >= 0.0)


def test_each_head_puts_most_weight_where_its_name_says() -> None:
    w = head_weights(10, 10)
    rows = np.arange(1, 10)
    assert np.all(w[0, rows, rows - 1] > 0.9)  # previous token
    assert np.all(w[1, rows, rows] > 0.9)  # same token
    assert np.all(w[2, rows, 0] > 0.9)  # first token
    assert np.allclose(w[3, 4, :5], 0.2)  # the average of the 5 visible keys


def test_widths_are_powers_of_two() -> None:
    assert list(widths_up_to(2)) == [1, 2] and list(widths_up_to(1000)) == [2**i for i in range(10)]


def test_lesson_one_quotes_the_measured_table() -> None:
    from app.config import ROOT

    lesson = ROOT / "courses" / "attention-step-by-step" / "lessons" / "01-scaled-dot-product.md"
    text = lesson.read_text(encoding="utf-8")
    m = measure_scale(512, 16)
    rows = 0
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 5 or not cells[0].isdigit():
            continue
        at = list(m.widths).index(int(cells[0]))
        measured = (m.variance[at], m.variance_scaled[at], m.entropy[at], m.entropy_scaled[at])
        places = (1, 2, 2, 2)
        quoted = [float(c) for c in cells[1:]]
        assert quoted == [round(float(v), p) for v, p in zip(measured, places, strict=True)]
        rows += 1
    assert rows == 4
    assert f"({m.variance[6]:.1f} at d_k = 64)" in text  # the caption's number, d_k = 2**6


def test_lesson_three_caption_numbers_are_the_drawn_weights() -> None:
    w = head_weights(10, 10)
    assert round(float(w[0, 1, 0]), 2) == 0.99 and round(float(w[0, 9, 8]), 2) == 0.94
    assert np.allclose(w[3, :, 0], 1 / np.arange(1, 11))  # 1, 1/2, 1/3, ... down the rows


@pytest.mark.parametrize(("length", "window"), [(8, 4), (10, 4), (12, 4), (12, 1), (6, 12)])
def test_the_window_masks_keep_the_pairs_lesson_four_counts(length: int, window: int) -> None:
    from app.content.attention_figures import window_masks

    causal, sliding, with_sink = window_masks(length, window, 1).values()
    assert causal.sum() == length * (length + 1) // 2
    w = min(window, length)  # 1 + 2 + ... + w for the first queries, then w each
    assert sliding.sum() == w * (w + 1) // 2 + (length - w) * w
    assert np.all(with_sink[:, 0]) and np.all(with_sink >= sliding)  # key 0 seen by everyone
    assert with_sink.sum() == sliding.sum() + max(length - window, 0)
