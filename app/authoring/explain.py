"""Explain this mistake: a cluster's representative program becomes a declared mistake.

The program was written by a student, so the mistake is marked `sandboxed`: everywhere it is
used afterwards (this check, `validate`, `prepare`, every grading and regrade) it runs only in
the sandbox (graders/engine.py). The check runs on a copy of the exercise with the new mistake:
the model solution must still be accepted, the program must be rejected and named by the new
mistake, and so must the cluster's other programs. Only then is the file written, through the
one path every edit of a course takes (`publish.apply`: the course's lock, a file unchanged on
disk since it was read, the course's load check, a git commit, a version in its history), by one
of the course's editors; then the course is refreshed and the members' latest submissions in the
cluster re-graded.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy.orm import Session

from app.authoring.drafts import disk_text, sha
from app.authoring.mistakes_file import slug_for, with_mistake
from app.authoring.publish import Edit, PublishRefused, apply
from app.content.loader import Course, Exercise
from app.courses.registry import CourseSource
from app.instructor.clusters.service import ClusterView, exercise_clusters
from app.instructor.models import RegradeJob
from app.instructor.regrade import regrade_one
from app.models_base import utcnow
from app.offerings.access import offering_id_here
from app.offerings.place import Place
from app.submissions.models import Submission
from app.users.models import User
from graders import Grader

MEMBERS_CHECKED = 5  # other programs of the cluster graded by the check


class ExplainRefused(Exception):
    """The check failed; nothing was written."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


@dataclass(frozen=True)
class Explained:
    """The mistake written and how many submissions were re-graded."""

    mistake: str
    regraded: int


def _named(report: Any) -> set[str]:
    return {t.misconception["id"] for t in report.tests if t.misconception}


def check(
    *,
    grader: Grader,
    exercises: Path,
    exercise: Exercise,
    entry: dict[str, Any],
    others: list[tuple[str, str]],
) -> list[str]:
    """The check's problems (none: it passes), on the copy of the exercise in `exercises`."""
    slug, framework, problems = exercise.meta.slug, str(entry["framework"]), []
    model = exercise.solutions.get(framework)
    if model is not None:
        report = grader.grade(
            exercise=slug, code=model, framework=framework, exercises_dir=exercises
        )
        if report.verdict != "accepted":
            problems.append(f"the model solution in {framework} is no longer accepted")
    report = grader.grade(
        exercise=slug, code=str(entry["code"]), framework=framework, exercises_dir=exercises
    )
    if report.verdict == "accepted":
        problems.append("the representative program is accepted: it is not a mistake")
    elif entry["id"] not in _named(report):
        problems.append(
            "the representative program is rejected but not recognised as this mistake "
            "(does its output change from run to run?)"
        )
    for n, (code, own) in enumerate(others, start=1):
        report = grader.grade(exercise=slug, code=code, framework=own, exercises_dir=exercises)
        if entry["id"] not in _named(report):
            problems.append(f"program {n} of the group's others is not recognised by it")
    return problems


def _entry(
    session: Session, view: ClusterView, title: str, hint: str, taken: set[str]
) -> dict[str, Any]:
    row = session.get(Submission, view.cluster.representative.submission_id)
    if row is None:
        raise ExplainRefused(["the group's representative submission no longer exists"])
    if row.framework == "jax":
        # The JAX compilation cache's trusted filler runs declared JAX mistakes' code.
        raise ExplainRefused(["a JAX program from a student cannot be declared here yet"])
    return {
        "id": slug_for(title, taken),
        "title": title.strip(),
        "hint": hint.strip(),
        "framework": row.framework,
        "code": row.code,
        "sandboxed": True,
    }


def _others(view: ClusterView) -> list[tuple[str, str]]:
    """A few other programs of the cluster, each with the framework it was written for."""
    return [(row.code, row.framework) for row, _ in view.cluster.diffs()[:MEMBERS_CHECKED]]


def _regrade_members(
    *,
    session: Session,
    grader: Grader,
    view: ClusterView,
    slug: str,
    instructor: User,
    place: Place,
) -> int:
    """Grade each member's latest submission in the cluster again, now (a regrade of the
    place's offering: the cluster is its students')."""
    members = [m.submission_id for m in view.cluster.members]
    job = RegradeJob(
        exercise_slug=slug,
        course_slug=place.course_slug,
        offering_id=offering_id_here(session=session, place=place)[0],
        status="running",
        total=len(members),
        errors=[],
        started_by=instructor.id,
        heartbeat_at=utcnow(),
        started_at=utcnow(),
    )
    session.add(job)
    session.commit()
    regraded = 0
    for submission_id in members:
        try:
            regrade_one(session=session, grader=grader, submission_id=submission_id, job_id=job.id)
            regraded += 1
        except Exception as exc:  # one member's failure leaves the others' new reports
            session.rollback()
            job.failed += 1
            job.errors = [
                *(job.errors or []),
                {"submission_id": submission_id, "message": str(exc)[:500]},
            ]
        job.done += 1
        session.commit()
    job.status, job.finished_at = "done", utcnow()
    session.commit()
    return regraded


def _write(
    *,
    session: Session,
    source: CourseSource,
    content: Course,
    path: str,
    before: str | None,
    text: str | None,
    user: User,
    message: str,
) -> None:
    """Write the file through the authoring path; its refusal becomes the check's problems."""
    try:
        apply(
            session=session,
            source=source,
            served=content,
            edits=[Edit(path, text, sha(before), since="the mistake was checked")],
            author=user,
            message=message,
        )
    except PublishRefused as refused:
        raise ExplainRefused([refused.message, *(p.message for p in refused.problems)]) from None


def explain(
    *,
    session: Session,
    grader: Grader,
    source: CourseSource,
    content: Course,
    exercise: Exercise,
    key: str,
    title: str,
    hint: str,
    instructor: User,
    refresh: Any,
    place: Place,
) -> Explained | None:
    """Declare the cluster's mistake; None when there is no such cluster."""
    slug = exercise.meta.slug
    view = exercise_clusters(session=session, slug=slug, place=place).find(key)
    if view is None:
        return None
    path = exercise.path.relative_to(source.folder).joinpath("mistakes.yaml").as_posix()
    before = disk_text(source.folder, path)
    entry = _entry(session, view, title, hint, {m.id for m in exercise.mistakes})
    text = with_mistake(before or "mistakes: []\n", entry)
    with tempfile.TemporaryDirectory(prefix="explain-") as folder:
        draft = Path(folder) / "exercises"
        shutil.copytree(exercise.path, draft / slug, ignore=shutil.ignore_patterns("__pycache__"))
        (draft / slug / "mistakes.yaml").write_text(text, encoding="utf-8")
        try:
            problems = check(
                grader=grader,
                exercises=draft,
                exercise=exercise,
                entry=entry,
                others=_others(view),
            )
        finally:
            grader.forget(slug, draft)
    if problems:
        raise ExplainRefused(problems)
    name = f"Explain this mistake in {slug}: {entry['title']}"
    _write(session=session, source=source, content=content, path=path, before=before,
           text=text, user=instructor, message=name)  # fmt: skip
    refused = refresh()
    if refused:  # the load check passed, so this is rare: take the file back the same way
        _write(session=session, source=source, content=content, path=path, before=text,
               text=before, user=instructor, message=f"Took back: {name}")  # fmt: skip
        refresh()
        raise ExplainRefused(refused)
    grader.forget(slug, source.exercises_dir)
    grader.forget(slug)
    regraded = _regrade_members(
        session=session, grader=grader, view=view, slug=slug, instructor=instructor, place=place
    )
    return Explained(mistake=str(entry["id"]), regraded=regraded)
