"""What a report needs from an exercise's own code, run in the sandbox (graders/judging/content.py):
property sentences for failed tests, and a class exercise's reference on the tables used.

Both run once per report for all its tests, never once per test."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

from graders import protocol
from graders.judging.properties import PropertyCheck, sentences, tidy, with_property
from graders.judging.spec import Case, ExerciseSpec, SpecError
from graders.report import TestResult

SLOTS = protocol.SLOTS


def _int(value: object) -> int:
    return int(np.asarray(value).reshape(-1)[0])


@dataclass(frozen=True)
class Pending:
    """A failed test whose case names a property: its sentence comes from the sandbox."""

    test: TestResult
    check: PropertyCheck
    case: Case
    received: np.ndarray
    summary: str


def explain_all(pending: list[Pending]) -> None:
    """Put each property's sentence first in its test's message; one sandbox run for all."""
    if not pending:
        return
    found = sentences([(p.check, p.case.inputs, p.received) for p in pending])
    for item, answer in zip(pending, found, strict=True):
        sentence = tidy(answer, case_name=item.case.name, hidden=item.case.hidden)
        item.test.message = with_property(sentence, item.summary)


def class_expected(
    spec: ExerciseSpec, cases: list[Case], frames: dict[int, protocol.Result] | None
) -> dict[int, np.ndarray]:
    """reference.py's output for each class case that needs one, from one sandbox run.

    It depends on the table the module used (the grader's own, or the module's parameters),
    so it is computed per submission; equal inputs are remembered per exercise. Without
    `frames` (Grader.prime), the cases that bring their own table are computed ahead.
    """
    wanted: dict[int, dict[str, np.ndarray]] = {}
    for case in cases:
        if frames is None:  # ahead of any submission: the cases that bring their own table
            table = case.inputs.get("table")
            if isinstance(table, np.ndarray) and not case.expect_error:
                wanted[case.index] = {"x": np.asarray(case.inputs["x"]), "table": table}
            continue
        base = case.index * SLOTS
        out, params = frames.get(base), frames.get(base + 2)
        if case.expect_error or not isinstance(out, np.ndarray):
            continue
        if not isinstance(params, np.ndarray):
            continue
        max_len, d_model = _int(case.inputs["max_len"]), _int(case.inputs["d_model"])
        chosen = case.inputs.get("table")
        table = chosen if isinstance(chosen, np.ndarray) else params.reshape(max_len, d_model)
        x = case.inputs["x"]
        wanted[case.index] = {"x": np.asarray(x), "table": np.asarray(table)}
    memo = spec.reference_memo
    keys = {i: _digest(args) for i, args in wanted.items()}
    todo = [i for i in wanted if keys[i] not in memo]
    if todo:
        for index, value in zip(todo, spec.reference_on([wanted[i] for i in todo]), strict=True):
            if not isinstance(value, np.ndarray):
                raise SpecError(f"{spec.slug}/reference.py raised on case {index}: {value.message}")
            memo[keys[index]] = value
    return {i: memo[keys[i]] for i in wanted}


def _digest(args: dict[str, np.ndarray]) -> bytes:
    digest = hashlib.sha256()
    for name, value in sorted(args.items()):
        digest.update(f"{name}:{value.dtype.str}:{value.shape}".encode())
        digest.update(np.ascontiguousarray(value).tobytes())
    return digest.digest()
