"""What a lab measures: its settings, the grader's evaluation sequences and how answers are scored.

Kept apart from the runner (graders/lab/experiments.py) because the reference runs' cache is keyed
by the code that decides their numbers: this file, not the plumbing around it.

Accuracy is split by position. The model is causal, so at a position below the training length
it sees exactly what it saw in training, whatever the sequence's length: those positions say
nothing about extrapolation. Only positions at or past the training length ("new" positions) do.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

CONFIG_KEYS = (
    "offset",
    "vocab",
    "d_model",
    "heads",
    "layers",
    "train_length",
    "steps",
    "batch",
    "lr",
    "seed",
    "eval_batch",
    "log_every",
)


@dataclass(frozen=True)
class Goal:
    """Accuracy the model must reach at `factor` times the training length.

    At factor 1 it is measured on every answerable position; past it, on the new positions only.
    """

    factor: float
    min_accuracy: float
    required: bool


@dataclass(frozen=True)
class LabSpec:
    """An experiment exercise's settings, read from the `experiment` section of exercise.yaml."""

    slot: str
    settings: dict[str, int | float]
    factors: tuple[float, ...]
    goals: tuple[Goal, ...]
    references: tuple[str, ...]

    @property
    def train_length(self) -> int:
        """Length of every training sequence."""
        return int(self.settings["train_length"])

    @property
    def offset(self) -> int:
        """The task: answer the token this many places back."""
        return int(self.settings.get("offset", 3))

    @property
    def lengths(self) -> list[int]:
        """Evaluation lengths, one per factor."""
        return [length_at(self.train_length, f) for f in self.factors]

    @property
    def chance(self) -> float:
        """Accuracy of guessing a token at random."""
        return 1.0 / float(self.settings["vocab"])

    def config(self) -> dict[str, Any]:
        """The plain values graders.inside.experiment.Config is built from."""
        return {"slot": self.slot, "lengths": self.lengths, **self.settings}


@dataclass(frozen=True)
class Scored:
    """Share right over all answerable positions, over trained ones, and over new ones."""

    all: float
    trained: float | None  # positions offset .. train_length-1: seen in training
    new: float | None  # positions train_length .. L-1; None when the sequence has none


def length_at(train_length: int, factor: float) -> int:
    """Sequence length at `factor` times the training length."""
    return round(train_length * factor)


def lab_spec(raw: dict[str, Any]) -> LabSpec:
    """Build from the (schema-checked) `experiment` mapping of exercise.yaml."""
    settings = {k: raw[k] for k in CONFIG_KEYS if k in raw}
    goals = tuple(
        Goal(float(g["factor"]), float(g["min_accuracy"]), bool(g.get("required", True)))
        for g in raw.get("goals", [])
    )
    return LabSpec(
        slot=str(raw["slot"]),
        settings=settings,
        factors=tuple(float(f) for f in raw.get("factors", (1, 1.5, 2, 4))),
        goals=goals,
        references=tuple(str(s) for s in raw.get("references", ())),
    )


def eval_sequences(spec: LabSpec) -> dict[int, np.ndarray]:
    """The tokens each length is measured on, made here so the answers never come from the run.

    Fixed by the settings' seed, so the same code gives the same curves, for students and for the
    reference runs alike.
    """
    seed = int(spec.settings.get("seed", 0))
    vocab, batch = int(spec.settings.get("vocab", 10)), int(spec.settings.get("eval_batch", 64))
    return {
        length: np.random.default_rng([seed, 1000, length]).integers(
            0, vocab, size=(batch, length), dtype=np.int64
        )
        for length in spec.lengths
    }


def _share(right: np.ndarray) -> float | None:
    return float(right.mean()) if right.size else None


def right_by_position(spec: LabSpec, tokens: np.ndarray, predicted: object) -> np.ndarray | None:
    """Whether each answerable position (column c is position c + offset) was answered right."""
    if not isinstance(predicted, np.ndarray) or predicted.shape != tokens.shape:
        return None
    if predicted.dtype.kind not in "iu":
        return None
    offset = spec.offset
    right: np.ndarray = predicted[:, offset:] == tokens[:, : tokens.shape[1] - offset]
    return right


def by_position(spec: LabSpec, rights: list[np.ndarray]) -> list[float | None]:
    """Share right at each position 0 .. longest-1, pooled over every sequence that reaches it.

    The model is causal, so position t is answered the same way in a sequence of any length:
    pooling the lengths' sequences only adds samples. Positions with no answer are None.
    """
    longest = max((r.shape[1] for r in rights), default=0) + spec.offset
    shares: list[float | None] = [None] * longest
    for t in range(spec.offset, longest):
        column = [r[:, t - spec.offset] for r in rights if r.shape[1] > t - spec.offset]
        shares[t] = round(float(np.concatenate(column).mean()), 4) if column else None
    return shares


def score(spec: LabSpec, tokens: np.ndarray, predicted: object) -> Scored | None:
    """Shares of answerable positions predicted right; None when `predicted` is not an answer.

    At position t the answer is the token `offset` places before; earlier positions have none.
    """
    right = right_by_position(spec, tokens, predicted)
    if right is None:
        return None
    offset, train = spec.offset, spec.train_length
    every = _share(right)
    if every is None:
        return None
    split = max(train - offset, 0)
    return Scored(every, _share(right[:, :split]), _share(right[:, split:]))
