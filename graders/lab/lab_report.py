"""Turns an experiment's measurements into a verdict against its goals, in plain words."""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np

from graders import protocol
from graders.judging.judge import _file_level, _missing
from graders.judging.spec import ExerciseSpec
from graders.lab.experiments import (
    LOSSES_ID,
    PICTURE_ID,
    PREDICTED_ID,
    REFUSED_ID,
    TRAINING_ID,
    Lab,
    Progress,
)
from graders.lab.lab_check import module_tests
from graders.lab.lab_scoring import LabSpec, Scored, eval_sequences, lab_spec, length_at, score
from graders.raw_run import RawRun
from graders.report import Report, TestResult, Verdict

LINE_RE = re.compile(r"\(line (\d+) of your code\)")
RIGHT = 0.9  # at or above: "right"
ABOVE_CHANCE = 1.5  # at or above this many times chance: "above chance" (the labs' goals)
NAN_CAUSES = (
    "Common causes: dividing by a norm or a count that can be zero, the log or square root of "
    "a negative number, or a score row that is -inf everywhere (softmax of nothing)."
)


def _pct(value: float) -> str:
    return f"{round(100 * value)}%"


def _describe(accuracy: float, chance: float) -> str:
    """Plain words for an accuracy, judged against guessing (never "partly right" at chance)."""
    if accuracy >= RIGHT:
        return "right"
    if accuracy >= 0.5:
        return "more often right than wrong"
    if round(accuracy, 6) >= round(ABOVE_CHANCE * chance, 6):  # 0.15 vs 1.5 * 0.1
        return "above chance but mostly wrong"
    return "close to chance"


def _rounded(value: float | None) -> float | None:
    return None if value is None or math.isnan(value) else round(value, 4)


def _metrics(
    spec: LabSpec, scored: list[Scored | None], losses: np.ndarray, refused: dict[int, str]
) -> dict[str, Any]:
    """Accuracy by length over all, trained and new positions (None where refused or none)."""
    shares: dict[str, dict[str, float | None]] = {"all": {}, "trained": {}, "new": {}}
    for length, found in zip(spec.lengths, scored, strict=True):
        for part, values in shares.items():
            values[str(length)] = None if found is None else _rounded(getattr(found, part))
    return {
        "train_length": spec.train_length,
        "lengths": spec.lengths,
        "accuracy_by_length": shares["all"],
        "trained_by_length": shares["trained"],
        "new_by_length": shares["new"],
        "refused": {str(k): v for k, v in refused.items()},
        "chance": round(spec.chance, 4),
        "loss": [round(float(v), 5) for v in losses.reshape(-1)],
        "loss_every": int(spec.settings.get("log_every", 10)),
    }


def _picture(spec: LabSpec, found: object) -> dict[str, Any] | None:
    """The position picture for the report, if the run sent one of the expected shape."""
    if not isinstance(found, np.ndarray) or found.ndim != 2 or not np.isfinite(found).all():
        return None
    length = spec.train_length
    if spec.slot == "absolute" and found.shape == (length, length):
        kind = "similarity"
    elif spec.slot == "relative" and found.shape == (int(spec.settings.get("heads", 2)), length):
        kind = "score_by_offset"
    else:
        return None
    values = [[round(float(v), 4) for v in row] for row in found]
    return {"kind": kind, "values": values}


def goal_value(spec: LabSpec, metrics: dict[str, Any], length: int) -> float | None:
    """What a goal at `length` is judged on: all positions at the training length, else the new
    ones (positions the model was trained on say nothing about extrapolation)."""
    key = "accuracy_by_length" if length <= spec.train_length else "new_by_length"
    value = (metrics.get(key) or {}).get(str(length))
    return None if value is None else float(value)


def _story(spec: LabSpec, metrics: dict[str, Any], refused: dict[int, str]) -> str:
    """One sentence per length: what the model did on trained positions and on new ones."""
    train, parts = spec.train_length, []
    for length in spec.lengths:
        if length in refused:
            parts.append(
                f"at {length} the model could not run ({refused[length]}): its "
                f"{length - train} new positions count as 0%"
            )
            continue
        every = metrics["accuracy_by_length"][str(length)]
        if length <= train:
            where = "the training length" if length == train else "a shorter length"
            words = _describe(every, spec.chance)
            parts.append(f"at {length} ({where}) it is {words} ({_pct(every)})")
            continue
        trained, new = (
            metrics["trained_by_length"][str(length)],
            metrics["new_by_length"][str(length)],
        )
        seen = "" if trained is None else f"{_pct(trained)} on the positions it was trained on, "
        parts.append(
            f"at {length} {seen}{_pct(new)} on the {length - train} new positions "
            f"({train} to {length - 1}): {_describe(new, spec.chance)}"
        )
    return "; ".join(parts) + f". Guessing at random scores {_pct(spec.chance)}."


def _goal_tests(spec: LabSpec, metrics: dict[str, Any]) -> list[TestResult]:
    tests: list[TestResult] = []
    for goal in spec.goals:
        length = length_at(spec.train_length, goal.factor)
        got = goal_value(spec, metrics, length)
        reached = got if got is not None else 0.0
        passed = reached >= goal.min_accuracy
        kind = "goal" if goal.required else "stretch goal"
        where = "" if length <= spec.train_length else " on the new positions"
        name = (
            f"{kind}: {_pct(goal.min_accuracy)} right{where} at length {length} ({goal.factor:g}x)"
        )
        if passed:
            message = f"Reached: {_pct(reached)}{where} at length {length}."
        elif got is None:
            message = f"Not reached: the model gave no answer at length {length}."
        else:
            message = f"Not reached: {_pct(reached)}{where} at length {length}."
        verdict: Verdict = "accepted" if passed else "wrong_answer"
        tests.append(TestResult(name, False, passed, verdict, message))
    return tests


def _failed_training(spec: LabSpec, raised: protocol.RaisedError, run: RawRun) -> Report:
    if raised.type_name == "LossNotFinite":
        message = (
            f"Training broke down: the loss became NaN (not a number) at step {raised.message} "
            f"of {spec.settings.get('steps')}, so the model learned nothing usable. Something in "
            f"your module produces NaN or infinite values. {NAN_CAUSES}"
        )
        return Report(
            verdict="wrong_answer",
            score=0.0,
            message=message,
            duration_ms=0.0,
            stdout=run.output,
            stdout_truncated=run.output_truncated,
            max_rss_mb=run.max_rss_mb,
            cpu_ms=run.cpu_ms,
            metrics={"train_length": spec.train_length, "nan_at_step": int(raised.message)},
        )
    verdict: Verdict
    if raised.type_name == "MemoryError" or "can't allocate memory" in raised.message:
        verdict, text = (
            "memory_limit_exceeded",
            (
                "Your code ran out of memory while the model was training. Does your module keep "
                "tensors (or a growing autograd graph) from one call to the next?"
            ),
        )
    else:
        verdict = "runtime_error"
        text = (
            f"Your module raised {raised.type_name} while the model was training: {raised.message}"
        )
    return Report(
        verdict=verdict,
        score=0.0,
        message=text,
        duration_ms=0.0,
        stdout=run.output,
        stdout_truncated=run.output_truncated,
        max_rss_mb=run.max_rss_mb,
        cpu_ms=run.cpu_ms,
        line=int(found.group(1)) if (found := LINE_RE.search(raised.message)) else None,
    )


def _measure(spec: LabSpec, run: RawRun) -> tuple[list[Scored | None], dict[int, str]] | None:
    """Accuracy per length, scored here from the run's predictions; None if any is missing.

    A length the model refused is None with its error; a length with neither a refusal nor
    predictions of the right shape means the run did not finish as the lab runs it.
    """
    scored: list[Scored | None] = []
    refused: dict[int, str] = {}
    for index, (length, tokens) in enumerate(eval_sequences(spec).items()):
        error = run.frames.get(REFUSED_ID + index)
        if isinstance(error, protocol.RaisedError):
            refused[length] = f"{error.type_name}: {error.message}"
            scored.append(None)
            continue
        value = score(spec, tokens, run.frames.get(PREDICTED_ID + index))
        if value is None:
            return None
        scored.append(value)
    return scored, refused


def _stopped(spec: LabSpec, run: RawRun) -> Report:
    at = run.stopped_at or {}
    step, steps = int(at.get("step", 0)), int(at.get("steps", 0))
    when = f" at step {step} of {steps}" if step else " before training began"
    report = Report(
        verdict="cancelled",
        score=0.0,
        message=(
            f"You stopped this run{when}, so nothing was measured. Press Submit to train again."
        ),
        duration_ms=0.0,
    )
    report.stdout, report.cpu_ms, report.max_rss_mb = run.output, run.cpu_ms, run.max_rss_mb
    report.metrics = {"train_length": spec.train_length, "stopped_at_step": step}
    return report


def judge_lab(spec: LabSpec, run: RawRun) -> Report:
    """The report of one experiment: goals as tests, metrics, and what happened in words."""
    if run.stopped_at is not None:
        return _stopped(spec, run)
    early = _file_level(run, 0.0)
    if early is not None:
        return early
    trained = run.frames.get(TRAINING_ID)
    if isinstance(trained, protocol.RaisedError):
        return _failed_training(spec, trained, run)
    losses = run.frames.get(LOSSES_ID)
    measured = _measure(spec, run) if trained is None else None
    if measured is None or not isinstance(losses, np.ndarray):
        verdict, message = _missing(run, run.time_limit_ms)
        report = Report(verdict=verdict, score=0.0, message=message, duration_ms=0.0)
        report.stdout, report.cpu_ms, report.max_rss_mb = run.output, run.cpu_ms, run.max_rss_mb
        return report
    got, refused = measured
    metrics = _metrics(spec, got, losses, refused)
    picture = _picture(spec, run.frames.get(PICTURE_ID))
    if picture is not None:
        metrics["position_picture"] = picture
    checks = module_tests(spec, run.frames)
    tests = [*checks, *_goal_tests(spec, metrics)]
    goals = tests[len(checks) :]
    required = [*checks, *(t for t, g in zip(goals, spec.goals, strict=True) if g.required)]
    accepted = all(t.passed for t in required)
    score = round(sum(t.passed for t in tests) / len(tests), 4) if tests else float(accepted)
    story = _story(spec, metrics, refused)
    met = sum(t.passed for t in goals)
    wrong = [t for t in checks if not t.passed]
    module = (
        f"Module check failed: {wrong[0].message}"
        if wrong
        else "Module check passed: it computes what the lab asks for."
    )
    lead = (
        f"{module} Goals met ({met} of {len(goals)})."
        if accepted
        else f"Not there yet. {module} {met} of {len(goals)} goals met."
    )
    return Report(
        verdict="accepted" if accepted else "wrong_answer",
        score=score,
        message=f"{lead} Trained on sequences of {spec.train_length}: {story}",
        duration_ms=0.0,
        tests=tests,
        stdout=run.output,
        stdout_truncated=run.output_truncated,
        max_rss_mb=run.max_rss_mb,
        cpu_ms=run.cpu_ms,
        metrics=metrics,
    )


def grade_experiment(
    lab: Lab, spec: ExerciseSpec, code: str, progress: Progress | None = None
) -> Report:
    """Train the exercise's model with this code in a sandbox of its own, judge the goals."""
    if spec.experiment is None:
        raise ValueError(f"{spec.slug} is not an experiment")
    settings = lab_spec(spec.experiment)
    run = lab.run(
        settings,
        code=code,
        entry_name=spec.entry_name,
        time_ms=spec.time_ms,
        memory_mb=spec.memory_mb,
        progress=progress,
    )
    return judge_lab(settings, run)
