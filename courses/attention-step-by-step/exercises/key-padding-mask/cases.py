"""Test cases for key-padding-mask: visible ones first, then hidden edge cases.

scores is (B, H, Tq, Tk) float32, lengths (B,) int64 between 1 and Tk (right padding: the real
tokens come first), causal the int 0 or 1 (1 only when Tq == Tk). Every batch mixes lengths, so
that a mask built on the wrong axis or from the wrong sequence shows. One case gives the padding
keys the highest scores; one has equal scores, where a right answer is 1 / (number of visible
keys). Cases named with a property say what properties.py explains when they fail.
"""

from __future__ import annotations

from typing import Any

import numpy as np

ZERO_ON_HIDDEN = "hidden_keys_get_zero_weight"
ROWS_SUM_TO_ONE = "rows_sum_to_one"


def _case(
    name: str,
    hidden: bool,
    scores: np.ndarray,
    lengths: list[int],
    causal: int,
    prop: str | None = None,
) -> dict[str, Any]:
    inputs = {
        "scores": scores.astype(np.float32),
        "lengths": np.asarray(lengths, dtype=np.int64),
        "causal": causal,
    }
    case: dict[str, Any] = {"name": name, "hidden": hidden, "inputs": inputs}
    if prop:
        case["property"] = prop
    return case


def cases() -> list[dict[str, Any]]:
    """Deterministic cases (a fixed seed)."""
    rng = np.random.default_rng(5_2017)

    def scores(b: int, h: int, t_q: int, t_k: int, scale: float = 1.0) -> np.ndarray:
        return scale * rng.standard_normal((b, h, t_q, t_k))

    padding_first = scores(2, 2, 5, 5)
    padding_first[0, :, :, 2:] += 4.0  # sequence 0 has 2 real keys, sequence 1 has 4
    padding_first[1, :, :, 4:] += 4.0
    return [
        _case("lengths 4 and 2, no causal mask", False, scores(2, 1, 4, 4), [4, 2], 0),
        _case("causal and padding masks together", False, scores(2, 2, 5, 5), [5, 3], 1),
        _case(
            "the padding keys score highest: they must still get no weight",
            False,
            padding_first,
            [2, 4],
            0,
            prop=ZERO_ON_HIDDEN,
        ),
        _case(
            "equal scores: each real key gets 1 / length, and every row sums to 1",
            False,
            np.zeros((3, 1, 6, 6)),
            [6, 3, 1],
            0,
            prop=ROWS_SUM_TO_ONE,
        ),
        _case("cross-attention: 3 queries, 7 keys", True, scores(2, 2, 3, 7), [7, 4], 0),
        _case("a sequence with one real token, causal", True, scores(2, 1, 4, 4), [1, 4], 1),
        _case("no padding at all", True, scores(2, 2, 5, 5), [5, 5], 0),
        _case(
            "scores in the hundreds: the softmax must not overflow",
            True,
            scores(2, 2, 5, 5, 100.0),
            [3, 5],
            1,
        ),
        _case("scores far below zero", True, scores(2, 1, 4, 4) - 1000.0, [3, 2], 0),
        _case(
            "eight heads, 32 tokens, causal: hidden keys get no weight",
            True,
            scores(2, 8, 32, 32),
            [32, 17],
            1,
            prop=ZERO_ON_HIDDEN,
        ),
        _case(
            "equal scores, causal: every row sums to 1",
            True,
            np.zeros((3, 1, 6, 6)),
            [6, 2, 4],
            1,
            prop=ROWS_SUM_TO_ONE,
        ),
    ]


# (B, H, Tq, Tk, causal) of the generated cases: shapes the fixed cases already use, so a JAX
# submission compiles nothing new for them.
GENERATED_SHAPES = (
    (2, 1, 4, 4, 0),
    (2, 1, 4, 4, 1),
    (2, 2, 5, 5, 1),
    (2, 2, 3, 7, 0),
    (3, 1, 6, 6, 1),
)


def generate(rng: np.random.Generator, size: int) -> dict[str, Any]:
    """New scores and lengths (1 to Tk) on the fixed cases' shapes; causal or not."""
    b, h, t_q, t_k, causal = GENERATED_SHAPES[size - 1]
    lengths = [int(n) for n in rng.integers(1, t_k + 1, size=b)]
    return _case("generated", False, rng.standard_normal((b, h, t_q, t_k)), lengths, causal)
