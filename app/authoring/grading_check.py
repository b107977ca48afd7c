"""The part of `validate` that grades: model solutions pass, starters fail, mistakes are named.

An exercise is only right if the real grader (same sandbox, same tests) agrees with its author,
so every check here goes through `graders.engine.Grader`, in parallel over a warm pool.
"""

from __future__ import annotations

import concurrent.futures
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from app.authoring.validate_cache import PassedChecks
from app.content.loader import Course, Exercise, Problem
from app.content.variants import variants
from app.submissions.presenter import verdict_label
from graders import Grader, PoolSettings, Report

Progress = Callable[[int, int, str], None]  # (done, total, what just finished)


@dataclass(frozen=True)
class Check:
    """One grading run and what its verdict must be."""

    exercise: Exercise
    kind: str  # "solution", "starter", "mistake" or "variant"
    framework: str
    code: str
    mistake_id: str | None = None  # the mistake's id, or the variant's name
    description: str = ""  # a variant's wrong behaviour, in words

    @property
    def label(self) -> str:
        """Short name for progress lines."""
        what = f"{self.kind} {self.mistake_id}" if self.mistake_id else self.kind
        return f"{self.exercise.meta.slug}: {what} ({self.framework})"


def checks_for(course: Course) -> list[Check]:
    """Every solution and starter per offered framework, and every declared mistake."""
    return [check for exercise in course.exercises for check in exercise_checks(exercise)]


def exercise_checks(exercise: Exercise) -> list[Check]:
    """One exercise's checks: what `validate` grades for it (and a draft's check job)."""
    found: list[Check] = []
    for framework in exercise.meta.frameworks:
        if framework in exercise.solutions:
            found.append(Check(exercise, "solution", framework, exercise.solutions[framework]))
        if framework in exercise.starters:
            found.append(Check(exercise, "starter", framework, exercise.starters[framework]))
    for mistake in exercise.mistakes:
        found.append(Check(exercise, "mistake", mistake.framework, mistake.code, mistake.id))
    return found + variant_checks(exercise)


def variant_checks(exercise: Exercise) -> list[Check]:
    """Automatic wrong variants of one model solution (the cases are the same in every
    framework, so one suffices: NumPy where offered, the quickest to grade)."""
    offered = [fw for fw in exercise.meta.frameworks if fw in exercise.solutions]
    if not offered or exercise.meta.entry.kind == "experiment":
        return []  # an experiment's goals are measured by training, not compared to outputs
    framework = "numpy" if "numpy" in offered else offered[0]
    entry = exercise.meta.entry
    return [
        Check(exercise, "variant", framework, v.code, v.name, v.description)
        for v in variants(solution=exercise.solutions[framework], entry=entry.name, kind=entry.kind)
    ]


def _rel(path: Path, exercises_dir: Path) -> str:
    return str(path.relative_to(exercises_dir.parent))


def _line_of_mistake(exercise: Exercise, mistake_id: str) -> int | None:
    text = (exercise.path / "mistakes.yaml").read_text(encoding="utf-8")
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip().removeprefix("- ").strip() in (f"id: {mistake_id}", f'id: "{mistake_id}"'):
            return number
    return None


def judge_check(check: Check, report: Report, exercises_dir: Path) -> Problem | None:
    """The problem, if the grader's verdict is not what this file promises."""
    folder = check.exercise.path
    words = verdict_label(report.verdict)
    if check.kind == "solution" and report.verdict != "accepted":
        path = _rel(folder / "solutions" / f"{check.framework}.py", exercises_dir)
        return Problem(path, f"the model solution is not accepted: {words}: {report.message}")
    if check.kind == "starter" and report.verdict == "accepted":
        path = _rel(folder / "starter" / f"{check.framework}.py", exercises_dir)
        return Problem(path, "the starter code is accepted: students would have nothing to do")
    if check.kind == "variant":
        if report.verdict != "accepted":
            return None
        path = _rel(folder / "cases.py", exercises_dir)
        return Problem(
            path,
            f"the tests accept a wrong solution that {check.description} "
            f"(automatic variant '{check.mistake_id}' of solutions/{check.framework}.py): "
            "add a case where that answer differs from the right one",
        )
    if check.kind != "mistake":
        return None
    path = _rel(folder / "mistakes.yaml", exercises_dir)
    line = _line_of_mistake(check.exercise, check.mistake_id or "")
    if report.verdict != "wrong_answer":
        wanted = f"mistake {check.mistake_id} must be a wrong answer"
        message = f"{wanted}; got {words}: {report.message}"
        return Problem(path, message, line)
    if check.exercise.meta.entry.kind == "class":
        # Named where its outputs tell it apart; a module without trainable parameters (buffer,
        # plain tensor) is explained by the parameter count and cannot be told apart by outputs.
        return None
    named = {t.misconception["id"] for t in report.tests if t.misconception}
    if check.mistake_id not in named:
        shown = ", ".join(sorted(named)) or "none"
        message = f"mistake {check.mistake_id} is rejected but not recognised (named: {shown})"
        return Problem(path, message, line)
    return None


def grading_problems(
    course: Course,
    *,
    exercises_dir: Path,
    pool: PoolSettings,
    progress: Progress | None = None,
    passed: PassedChecks | None = None,
    mistakes_cache_dir: Path | None = None,
) -> list[Problem]:
    """Grade every check with one warm grader; a grader failure is a problem, not a crash.

    With `passed`, a check that passed before with the same inputs is not graded again, and
    one that passes now is recorded there. `mistakes_cache_dir`: the known mistakes' outputs
    that `prepare` computed (keyed by the exercise's files and library versions), as the app
    uses them.
    """
    every = checks_for(course)
    before = [passed is not None and passed.passed(c) for c in every]
    checks = [c for c, known in zip(every, before, strict=True) if not known]
    skipped = len(every) - len(checks)
    if progress is not None and skipped:
        progress(skipped, len(every), f"{skipped} checks passed before with the same files")
    if not checks:
        return []
    grader = Grader(exercises_dir, pool, mistakes_cache_dir=mistakes_cache_dir)
    grader.start()
    workers = max(1, sum(pool.sizes.values()))
    problems: list[Problem] = []
    why = grader.health.blocked()
    if why is not None:  # one clear problem, at once, instead of one per check
        grader.stop()
        return [Problem("exercises", f"grading is unavailable: {why}")]
    try:
        with concurrent.futures.ThreadPoolExecutor(workers, "validate-grade") as executor:
            futures = {
                executor.submit(
                    grader.grade,
                    exercise=c.exercise.meta.slug,
                    code=c.code,
                    framework=c.framework,
                ): c
                for c in checks
            }
            for done, future in enumerate(concurrent.futures.as_completed(futures), 1):
                check = futures[future]
                try:
                    problem = judge_check(check, future.result(), exercises_dir)
                except Exception as exc:  # the grader itself failed on this file
                    rel = _rel(check.exercise.path, exercises_dir)
                    problem = Problem(rel, f"{check.label}: could not be graded: {exc}")
                if problem is not None:
                    problems.append(problem)
                elif passed is not None:
                    passed.record(check)
                if progress is not None:
                    progress(skipped + done, len(every), check.label)
    finally:
        grader.stop()
    return sorted(problems, key=lambda p: (p.path, p.line or 0, p.message))
