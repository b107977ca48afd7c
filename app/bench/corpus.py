"""The benchmark's corpus: student-like JAX submissions, each with the verdict it must get.

Why: the model solution and the declared mistakes are exactly what a warmed grader has already
compiled, so a benchmark of those alone measures the best case. A class writes the lookup its own
way; `bench/corpus/<exercise>/` keeps such files (equivalent rewrites and undeclared wrong
answers) with a manifest saying what the real grader answers, and `check` proves it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Protocol

import yaml

from app.config import ROOT

CORPUS = ROOT / "bench" / "corpus"
EXERCISES = ROOT / "exercises"
VERDICTS = frozenset(
    {
        "accepted",
        "wrong_answer",
        "runtime_error",
        "time_limit_exceeded",
        "memory_limit_exceeded",
        "output_limit_exceeded",
        "syntax_error",
        "invalid_submission",
    }
)


@dataclass(frozen=True)
class Entry:
    """One saved submission and what the grader must say about it."""

    exercise: str
    framework: str
    file: str
    verdict: str
    about: str
    mistakes: tuple[str, ...] = ()  # declared misconceptions the grader names on its tests

    @property
    def path(self) -> Path:
        """Where the code lives."""
        return CORPUS / self.exercise / self.file

    @property
    def code(self) -> str:
        """The submission's source."""
        return _read(self.path)

    @property
    def right(self) -> bool:
        """Whether the grader must accept it."""
        return self.verdict == "accepted"


@cache
def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def exercises() -> list[str]:
    """Every exercise that has a corpus folder, sorted."""
    return sorted(p.parent.name for p in CORPUS.glob("*/manifest.yaml"))


@cache
def entries(exercise: str) -> tuple[Entry, ...]:
    """The exercise's corpus in manifest order (empty when it has none)."""
    manifest = CORPUS / exercise / "manifest.yaml"
    if not manifest.is_file():
        return ()
    data = yaml.safe_load(manifest.read_text(encoding="utf-8"))
    framework = str(data.get("framework", "jax"))
    return tuple(
        Entry(
            exercise=exercise,
            framework=str(row.get("framework", framework)),
            file=str(row["file"]),
            verdict=str(row["verdict"]),
            about=str(row.get("about", "")),
            mistakes=_names(row.get("mistake")),
        )
        for row in data["submissions"]
    )


def _names(value: Any) -> tuple[str, ...]:
    """A manifest's `mistake`: absent, one id, or a list of ids (different tests, different
    declared mistakes reproduced)."""
    if value is None:
        return ()
    return (str(value),) if isinstance(value, str) else tuple(str(v) for v in value)


def _normal(code: str) -> str:
    """Code without comments, docstring-free blank lines and spacing, for sameness checks."""
    lines = [re.sub(r"#.*", "", line).rstrip() for line in code.splitlines()]
    return "\n".join(line for line in lines if line.strip())


def known_code(exercise: str) -> dict[str, str]:
    """The exercise's model solutions and declared mistakes (label -> normalised code)."""
    folder = EXERCISES / exercise
    known = {f"solution {p.stem}": _normal(p.read_text()) for p in folder.glob("solutions/*.py")}
    mistakes = yaml.safe_load((folder / "mistakes.yaml").read_text()) or {}
    for mistake in mistakes.get("mistakes", []):
        known[f"mistake {mistake['id']}"] = _normal(mistake["code"])
    return known


def static_problems(exercise: str) -> list[str]:
    """What is wrong with a corpus folder without grading: files, verdicts, sameness."""
    problems: list[str] = []
    listed = entries(exercise)
    folder = CORPUS / exercise
    files = {p.name for p in folder.glob("*.py")}
    named = [e.file for e in listed]
    if len(set(named)) != len(named):
        problems.append(f"{exercise}: a file is listed twice")
    problems += [f"{exercise}/{f}: not in the manifest" for f in sorted(files - set(named))]
    problems += [f"{exercise}/{f}: listed, missing" for f in sorted(set(named) - files)]
    known = {code: label for label, code in known_code(exercise).items()}
    seen: dict[str, str] = {}
    for entry in listed:
        if entry.verdict not in VERDICTS:
            problems.append(f"{exercise}/{entry.file}: unknown verdict {entry.verdict!r}")
        if entry.file not in files:
            continue
        code = _normal(entry.code)
        if code in known:
            problems.append(f"{exercise}/{entry.file}: is the {known[code]}")
        if code in seen:
            problems.append(f"{exercise}/{entry.file}: same code as {seen[code]}")
        seen[code] = entry.file
    return problems


class Graded(Protocol):
    """The parts of graders.report.Report a check reads."""

    verdict: str
    message: str
    tests: Any


def named_mistakes(report: Graded) -> set[str]:
    """Declared misconceptions the grader matched on any test of the report."""
    return {t.misconception["id"] for t in report.tests if t.misconception}


def mismatch(entry: Entry, report: Graded) -> str | None:
    """Why the grader's report disagrees with the manifest, or None when it agrees."""
    named = named_mistakes(report)
    want = set(entry.mistakes)
    if report.verdict != entry.verdict:
        return f"got {report.verdict}, manifest says {entry.verdict}: {report.message[:200]}"
    if named != want:
        return f"misconceptions named {sorted(named)}, manifest says {sorted(want)}"
    return None


STARVED = "most of the time it was waiting"  # the grader's words for a job starved of CPU


@dataclass
class Checked:
    """What a check found: disagreements, and time-outs of starved jobs (no verdict either way)."""

    problems: list[str]
    starved: list[str]


def check(
    grade: Callable[[Entry], Graded],
    chosen: Iterable[Entry],
    progress: Callable[[Entry, str | None], None] | None = None,
) -> Checked:
    """Grade every chosen entry with `grade` (the real grader) and compare with the manifest.

    An unexpected time-out is graded again once: JAX code compiling a dozen shapes on a loaded
    2-core machine can be starved past its limit. If the grader still says it computed for a
    fraction of its time, that file is reported as starved, not as a wrong verdict.
    """
    found = Checked([], [])
    for entry in chosen:
        report = grade(entry)
        if report.verdict == "time_limit_exceeded" != entry.verdict:
            report = grade(entry)
        why = mismatch(entry, report)
        if progress is not None:
            progress(entry, why)
        if why is None:
            continue
        starved = report.verdict == "time_limit_exceeded" and STARVED in report.message
        (found.starved if starved else found.problems).append(
            f"{entry.exercise}/{entry.file}: {why}"
        )
    return found
