"""Behaviour signatures: what a submission's outputs did, so wrong answers can be grouped
without reading code. Computed outside the sandbox from the trusted reference's outputs; the
student's own claims never enter it. Instructors only: the presenter never shows it."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import numpy as np

from graders import protocol
from graders.judging.compare import Array, dtype_class, mismatch_mask
from graders.judging.spec import Case
from graders.report import TestResult

Signature = dict[str, Any]
NEAREST_SHARE = 0.5  # a declared mistake is "nearest" only when it explains most elements
# Element codes of the mask: 0 matches, 1 too high, 2 too low, 3 NaN or infinity where not due.
TOO_HIGH, TOO_LOW, NOT_FINITE = 1, 2, 3
# What the key is made of: the per-test fields that describe behaviour, not the fuzzy ones.
KEY_FIELDS = ("verdict", "shape", "dtype", "mask", "mistake", "variant", "error")


def _comparable(expected: Array, received: Array) -> bool:
    classes = (dtype_class(expected.dtype), dtype_class(received.dtype))
    return expected.shape == received.shape and "other" not in classes


def _codes(expected: Array, received: Array, *, rtol: float, atol: float) -> Array:
    """Per element: does it match, and if not, which way it is off (tolerance-aware)."""
    exact = dtype_class(expected.dtype) != "float"
    bad, nan_bad, inf_bad, _ = mismatch_mask(expected, received, rtol=rtol, atol=atol, exact=exact)
    e, r = expected.astype(np.float64), received.astype(np.float64)
    if exact:
        bad = bad | (e != r)
    codes = np.zeros(expected.shape, dtype=np.int8)
    with np.errstate(invalid="ignore"):
        codes[bad & (r > e)] = TOO_HIGH
        codes[bad & (r < e)] = TOO_LOW
    codes[nan_bad | inf_bad] = NOT_FINITE
    return codes


def _digest(parts: bytes) -> str:
    return hashlib.blake2b(parts, digest_size=8).hexdigest()


def array_signature(
    expected: Array,
    received: Array,
    *,
    rtol: float,
    atol: float,
    verdict: str,
    mistake: str | None = None,
    variant: str | None = None,
    nearest: dict[str, Any] | None = None,
) -> Signature:
    """One test's behaviour: the output's shape and kind, which elements differ and which way,
    the declared mistake it reproduces and the automatic variant feedback named."""
    mask: str | None = None
    differ: int | None = None
    if verdict == "accepted":
        differ = 0
    elif _comparable(expected, received):
        codes = _codes(expected, received, rtol=rtol, atol=atol)
        differ = int(np.count_nonzero(codes))
        shape = np.asarray(codes.shape, dtype=np.int64).tobytes()
        mask = _digest(shape + codes.tobytes()) if differ else None
    return {
        "verdict": verdict,
        "shape": [int(d) for d in received.shape],
        "dtype": dtype_class(received.dtype),
        "differ": differ,
        "mask": mask,
        "mistake": mistake,
        "variant": variant,
        "nearest": nearest,
    }


def failure_signature(verdict: str, *, error: str | None = None) -> Signature:
    """A test (or a file) without an output to compare: its verdict and exception type."""
    return {"verdict": verdict, "error": error}


def nearest_mistake(
    received: Array, candidates: list[tuple[str, Array]], *, rtol: float, atol: float
) -> dict[str, Any] | None:
    """The declared mistake whose output agrees with `received` on the most elements."""
    best: tuple[float, str] | None = None
    for mistake_id, output in candidates:
        if not _comparable(output, received) or output.size == 0:
            continue
        share = 1.0 - float(_codes(output, received, rtol=rtol, atol=atol).astype(bool).mean())
        if share >= NEAREST_SHARE and (best is None or share > best[0]):
            best = (share, mistake_id)
    return None if best is None else {"id": best[1], "share": round(best[0], 3)}


def behaviour(tests: list[Signature]) -> dict[str, Any]:
    """The report's `behaviour`: every test's signature, and one key for grouping them."""
    kept = [{k: t.get(k) for k in KEY_FIELDS} for t in tests]
    key = _digest(json.dumps(kept, sort_keys=True).encode())
    return {"key": key, "tests": tests}


def tests_behaviour(
    cases: list[Case],
    tests: list[TestResult],
    frames: dict[int, protocol.Result],
    signatures: dict[int, Signature],
) -> dict[str, Any]:
    """Every test's signature in order; a test without an output keeps its verdict and error."""
    signed: list[Signature] = []
    for case, test in zip(cases, tests, strict=True):
        if case.index in signatures:
            signed.append(signatures[case.index])
            continue
        raised = frames.get(case.index * protocol.SLOTS)
        error = raised.type_name if isinstance(raised, protocol.RaisedError) else None
        signed.append(failure_signature(test.verdict, error=error))
    return behaviour(signed)
