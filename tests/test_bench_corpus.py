"""The benchmark's corpus (bench/corpus), cheaply: manifests complete, files distinct from the
model solutions and declared mistakes, enough of each kind. Grading every file through the real
grader is `python -m app corpus` (minutes of JAX compilation: not for the ordinary suite)."""

from __future__ import annotations

import ast

import pytest
import yaml

from app.bench import corpus, scenarios
from app.config import ROOT
from graders.report import Report

SEQUENTIAL_JAX = ("position-embedding-gather", "learned-pos-embed-forward")


def test_the_benchmarks_jax_exercises_have_a_corpus() -> None:
    assert set(SEQUENTIAL_JAX) <= set(corpus.exercises())


@pytest.mark.parametrize("exercise", corpus.exercises())
def test_a_corpus_folder_is_complete_and_student_like(exercise: str) -> None:
    entries = corpus.entries(exercise)
    assert corpus.static_problems(exercise) == []
    assert len(entries) >= 30
    assert sum(e.right for e in entries) >= 10 and sum(not e.right for e in entries) >= 10
    meta = yaml.safe_load((ROOT / "exercises" / exercise / "exercise.yaml").read_text())
    declared = yaml.safe_load((ROOT / "exercises" / exercise / "mistakes.yaml").read_text())
    ids = {m["id"] for m in declared["mistakes"]}
    for entry in entries:
        assert entry.framework in meta["frameworks"], entry.file
        assert set(entry.mistakes) <= ids and not (entry.mistakes and entry.right), entry.file
        tree = ast.parse(entry.code)
        names = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
        if entry.verdict != "invalid_submission":
            assert meta["entry"]["name"] in names, entry.file


@pytest.mark.parametrize(
    ("verdict", "message", "problems", "starved"),
    [
        ("accepted", "", 0, 0),
        ("wrong_answer", "no", 1, 0),
        ("time_limit_exceeded", corpus.STARVED, 0, 1),  # a busy machine: no verdict either way
        ("time_limit_exceeded", "it computed for the whole time", 1, 0),
    ],
)
def test_a_check_sorts_disagreements_from_starved_jobs(
    verdict: str, message: str, problems: int, starved: int
) -> None:
    entry = next(e for e in corpus.entries("position-embedding-gather") if e.right)
    report = Report(verdict=verdict, score=0.0, message=message, duration_ms=1.0)  # type: ignore[arg-type]
    found = corpus.check(lambda _entry: report, [entry])
    assert (len(found.problems), len(found.starved)) == (problems, starved)


def test_the_benchmark_draws_jax_submissions_from_the_corpus() -> None:
    rights, wrongs = scenarios.drawn("position-embedding-gather", "jax")
    files = {e.file for e in corpus.entries("position-embedding-gather")}
    assert {a.source for a in rights + wrongs} == files
    picked = scenarios.alternating(rights, wrongs, 20)
    assert [a.right for a in picked] == [True, False] * 10
    assert len({a.code for a in picked}) == 20  # twenty different programs
    # Where there is no corpus, the declared answers stand in (NumPy here).
    numpy_rights, numpy_wrongs = scenarios.drawn("position-embedding-gather", "numpy")
    assert [a.source for a in numpy_rights + numpy_wrongs] == ["declared"] * (1 + len(numpy_wrongs))


def test_the_summary_counts_new_compilations_of_warm_jax_jobs() -> None:
    jax = {"framework": "jax"}
    outcomes = [
        scenarios.Outcome("jax gather", 10.0, "accepted", True, new_compilation=True, **jax),
        scenarios.Outcome("jax gather", 20.0, "wrong_answer", False, new_compilation=False, **jax),
        scenarios.Outcome("jax gather", 3.0e3, "accepted", True, **jax),  # timed out there
        scenarios.Outcome("numpy gather", 5.0, "accepted", True, framework="numpy"),
    ]
    summary = scenarios.summary(outcomes)
    assert (summary["warm_jax_jobs"], summary["new_compilations"]) == (2, 1)
    assert summary["jax_unknown"] == 1
    assert "new_compilation" not in Report("accepted", 1.0, "", 1.0).to_dict()


def test_the_submission_view_says_whether_a_jax_job_compiled() -> None:
    """The benchmark reads `new_compilation` from the final event (the submission's view)."""
    import datetime as dt

    from app.submissions.models import Submission
    from app.submissions.presenter import STUDENT, submission_json

    graded = {"verdict": "accepted", "score": 1.0, "message": "", "duration_ms": 1.0, "tests": []}

    def view(report: dict[str, object]) -> dict[str, object]:
        row = Submission(
            id=1,
            user_id=1,
            exercise_slug="position-embedding-gather",
            framework="jax",
            mode="submit",
            code="",
            status="done",
            report={**graded, **report},
            created_at=dt.datetime(2026, 1, 1, tzinfo=dt.UTC),
            late=False,
        )
        return submission_json(row, viewer=STUDENT)

    assert view({"tests": [], "new_compilation": True})["new_compilation"] is True
    assert "new_compilation" not in view({"tests": []})
