"""Checks the module a lab asks for before its training counts: the grader's inputs, its verdict.

The sandbox calls a fresh instance of the student's module on inputs made here and sends back
only the outputs (graders/inside/experiment_harness.py); they are judged here, so a wrong module is
named as wrong even when the model it sits in happens to train well. Absolute slot: the output
must be x plus the sinusoids of "Attention Is All You Need" (interleaved sin, cos) at every
length, past max_len too. Relative slot: the scores must depend on the offset between query and
key only, and must depend on it (plain q k^T has no position).
"""

from __future__ import annotations

import numpy as np

from graders import protocol
from graders.lab.lab_scoring import LabSpec
from graders.report import TestResult

CHECK_ID = protocol.CHECK_ID  # frames CHECK_ID + i: the module's output on probe i, or its error
ATOL = 1e-4
SHIFT = 8  # the relative probe moves every token this many positions later


def _rng(spec: LabSpec) -> np.random.Generator:
    return np.random.default_rng([int(spec.settings.get("seed", 0)), 2000])


def probes(spec: LabSpec) -> list[tuple[np.ndarray, np.ndarray | None]]:
    """The inputs the module is called on: (x, None) for absolute, (q, k) for relative."""
    rng, d = _rng(spec), int(spec.settings.get("d_model", 32))
    if spec.slot == "absolute":
        lengths = sorted({spec.train_length, *spec.lengths})
        return [(rng.standard_normal((2, n, d)).astype(np.float32), None) for n in lengths]
    heads = int(spec.settings.get("heads", 2))
    head_dim = d // heads
    n = max(spec.lengths)
    q, k = (rng.standard_normal((1, heads, n, head_dim)).astype(np.float32) for _ in range(2))
    same = np.broadcast_to(rng.standard_normal(head_dim), (1, heads, n, head_dim))
    same = np.ascontiguousarray(same, dtype=np.float32)
    return [(q[:, :, SHIFT:], k[:, :, SHIFT:]), (q, k), (same, same.copy())]


def sinusoids(length: int, d_model: int, *, interleaved: bool = True) -> np.ndarray:
    """The reference encoding (float64); interleaved=False is the concatenated mistake."""
    position = np.arange(length)[:, None]
    rate = 10000.0 ** (-np.arange(0, d_model, 2) / d_model)
    sin, cos = np.sin(position * rate), np.cos(position * rate)
    if not interleaved:
        return np.concatenate([sin, cos], axis=1)
    table = np.empty((length, d_model))
    table[:, 0::2], table[:, 1::2] = sin, cos
    return table


def _raised(found: protocol.RaisedError, length: int) -> str:
    return f"at length {length} your module raised {found.type_name}: {found.message}"


def _absolute(spec: LabSpec, outputs: list[object]) -> TestResult:
    name = "module check: x + the sinusoidal encoding, at every length"
    for (x, _), found in zip(probes(spec), outputs, strict=True):
        length, d = x.shape[1], x.shape[2]
        if isinstance(found, protocol.RaisedError):
            return _fail(name, _raised(found, length) + ". Sinusoids exist for every position.")
        if not isinstance(found, np.ndarray) or found.shape != x.shape:
            shape = getattr(found, "shape", None)
            return _fail(name, f"at length {length} it returned shape {shape}, not {x.shape}.")
        added = found.astype(np.float64) - x
        if np.allclose(added, sinusoids(length, d), atol=ATOL):
            continue
        if np.allclose(added, sinusoids(length, d, interleaved=False), atol=ATOL):
            return _fail(
                name,
                "the sines and cosines are concatenated (all sines, then all cosines); the "
                "encoding interleaves them: sin in even dimensions, cos in odd ones.",
            )
        wrong = np.abs(added - sinusoids(length, d)).max(axis=(0, 2)) > ATOL
        first = int(np.argmax(wrong))
        if first >= spec.train_length:
            return _fail(
                name,
                f"positions 0 to {first - 1} are right but position {first} is not (length "
                f"{length}): past max_len = {spec.train_length} the encoding must go on, not "
                "stop, repeat or clamp to the last row.",
            )
        return _fail(name, f"at length {length}, position {first} does not get x + PE[{first}].")
    return TestResult(name, False, True, "accepted", "Your module adds the right encoding.")


def _lower(scores: np.ndarray) -> np.ndarray:
    """Entries with key <= query (the rest is masked away), flattened per head."""
    rows, cols = np.tril_indices(scores.shape[-1])
    return scores[..., rows, cols]


def _relative(spec: LabSpec, outputs: list[object]) -> list[TestResult]:
    names = (
        "module check: scores depend only on the offset",
        "module check: scores depend on the offset",
    )
    shaped = []
    for (q, _), found in zip(probes(spec), outputs, strict=True):
        length = q.shape[2]
        if isinstance(found, protocol.RaisedError):
            why = _raised(found, length)
            return [_fail(n, why) for n in names]
        want = (*q.shape[:3], length)
        if not isinstance(found, np.ndarray) or found.shape != want:
            why = (
                f"at length {length} it returned shape {getattr(found, 'shape', None)}, not {want}"
            )
            return [_fail(n, why + ".") for n in names]
        shaped.append(found.astype(np.float64))
    short, long, same = shaped
    moved = long[..., SHIFT:, SHIFT:]
    scale = 1.0 + np.abs(short).max()
    tests = []
    if np.allclose(_lower(moved), _lower(short), atol=ATOL * scale, rtol=1e-4):
        tests.append(_pass(names[0], "Moving every token later leaves its scores unchanged."))
    else:
        i, j = np.unravel_index(
            int(np.abs(moved - short).max(axis=(0, 1)).argmax()), short.shape[2:]
        )
        tests.append(
            _fail(
                names[0],
                f"moving every query and key {SHIFT} positions later changed the score of query "
                f"{i} and key {j}: a relative score must depend on i - j only, not on where the "
                "pair sits.",
            )
        )
    last = same[0, :, -1, :]  # one query, the same vector at every position, every offset
    if (np.ptp(last, axis=-1) > ATOL * (1.0 + np.abs(last).max())).all():
        tests.append(_pass(names[1], "The same key scores differently at different offsets."))
    else:
        tests.append(
            _fail(
                names[1],
                "the same key gets the same score at every offset in some head, so that head "
                "has no position: rotate q and k (RoPE) or add a distance penalty (ALiBi).",
            )
        )
    return tests


def _pass(name: str, message: str) -> TestResult:
    return TestResult(name, False, True, "accepted", message)


def _fail(name: str, message: str) -> TestResult:
    return TestResult(name, False, False, "wrong_answer", message[:1].upper() + message[1:])


def module_tests(spec: LabSpec, frames: dict[int, protocol.Result]) -> list[TestResult]:
    """The module checks as tests, judged from the outputs the run sent back."""
    outputs: list[object] = [frames.get(CHECK_ID + i) for i in range(len(probes(spec)))]
    if spec.slot == "absolute":
        return [_absolute(spec, outputs)]
    return _relative(spec, outputs)
