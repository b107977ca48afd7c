"""A reference scheme's runs over several seeds, summarised as the figures and tables show them.

Every measure becomes the mean over the seeds, with the lowest and highest seed beside it (the
spread is min–max, not a standard deviation: with three seeds every run is shown, and a standard
deviation of three numbers would say little). Positions are grouped in buckets of BUCKET, the
share right being pooled over the bucket's positions within each seed before the seeds are
compared.
"""

from __future__ import annotations

from typing import Any

BUCKET = 4  # positions per bucket in the by-position figure and table
LENGTH_MEASURES = ("accuracy_by_length", "trained_by_length", "new_by_length")
SOLUTION = "reference"  # the exercise's own reference.py (graders.lab.experiment_reference)
SAME = (*LENGTH_MEASURES, "accuracy_by_position", "loss")  # what a twin run repeats exactly


def solution_twin(first: dict[str, dict[str, Any]]) -> str | None:
    """The scheme whose first-seed run the model solution's first-seed run repeats exactly.

    Why: the model solution is usually one of the schemes written out by the author; a run that
    measured the same on every length, position and training step is the same computation, so
    that scheme's seeds stand for the solution's and its other seeds are not trained again.
    """
    solution = first.get(SOLUTION)
    if solution is None or "nan_at_step" in solution:
        return None
    return next(
        (
            scheme
            for scheme, run in first.items()
            if scheme != SOLUTION and all(run.get(k) == solution.get(k) for k in SAME)
        ),
        None,
    )


def _stats(values: list[float | None]) -> tuple[float, float, float] | None:
    """(mean, lowest, highest) over the seeds; None when any seed has no value (refused)."""
    if not values or any(v is None for v in values):
        return None
    known = [float(v) for v in values if v is not None]
    return round(sum(known) / len(known), 4), min(known), max(known)


def _mean_curve(curves: list[list[float]]) -> list[float]:
    """The loss curve averaged step by step over the seeds that reached each step."""
    longest = max((len(c) for c in curves), default=0)
    out = []
    for i in range(longest):
        here = [c[i] for c in curves if i < len(c)]
        out.append(round(sum(here) / len(here), 5))
    return out


def buckets(length: int, offset: int) -> list[tuple[int, int]]:
    """Position buckets [first, last] from the first answerable position to length - 1."""
    starts = range(offset - offset % BUCKET, length, BUCKET)
    return [(max(s, offset), min(s + BUCKET, length) - 1) for s in starts]


def _bucket_share(shares: list[float | None], first: int, last: int) -> float | None:
    """Mean share over a bucket's positions, None if the run did not reach all of them."""
    part = shares[first : last + 1]
    if len(part) < last - first + 1 or any(v is None for v in part):
        return None
    return sum(float(v) for v in part if v is not None) / len(part)


def by_bucket(
    runs: list[dict[str, Any]], length: int, offset: int
) -> list[tuple[int, int, tuple[float, float, float] | None]]:
    """(first, last, (mean, low, high) or None) for each position bucket, over the seeds."""
    out = []
    for first, last in buckets(length, offset):
        values = [_bucket_share(r.get("accuracy_by_position") or [], first, last) for r in runs]
        out.append((first, last, _stats(values)))
    return out


def summarise(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """One scheme's seeds as one run: means where a single run had values, plus `spread`
    ({measure: {length: [low, high]}}), `seeds` and `per_seed` (the runs themselves)."""
    first = runs[0]
    summary: dict[str, Any] = {
        "scheme": first.get("scheme"),
        "train_length": first["train_length"],
        "seeds": [r.get("seed", k) for k, r in enumerate(runs)],
        "per_seed": runs,
        "spread": {},
        "cpu_seconds": round(sum(float(r.get("cpu_seconds", 0)) for r in runs), 2),
    }
    failed = [r["nan_at_step"] for r in runs if "nan_at_step" in r]
    if failed:
        summary["nan_at_step"] = min(failed)
        return summary
    for measure in LENGTH_MEASURES:
        lengths = list(first.get(measure) or {})
        means: dict[str, float | None] = {}
        spread: dict[str, list[float]] = {}
        for n in lengths:
            got = _stats([(r.get(measure) or {}).get(n) for r in runs])
            means[n] = None if got is None else got[0]
            if got is not None:
                spread[n] = [got[1], got[2]]
        summary[measure] = means
        summary["spread"][measure] = spread
    summary["refused"] = {n: why for r in runs for n, why in (r.get("refused") or {}).items()}
    summary["loss"] = _mean_curve([list(r.get("loss") or []) for r in runs])
    return summary
