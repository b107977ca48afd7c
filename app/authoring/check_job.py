"""A draft's grading check as a `check` job: what `validate` grades, for one exercise, in a worker.

Why a job: the checks run content code through the grader, which belongs to the workers (the
grading threads of the embedded mode, `python -m app worker` with Redis), never a grader of the
web request's own. Saving an exercise's file queues one; the editor polls its problems.
"""

from __future__ import annotations

import concurrent.futures
import time
from pathlib import Path
from typing import Any

from sqlalchemy.orm import Session

from app.authoring import drafts
from app.authoring.check import Found, overlay
from app.authoring.grading_check import Check, exercise_checks, judge_check
from app.authoring.paths import EXERCISE_TEXT
from app.content.loader import Problem, load_course
from app.courses.registry import CourseSource
from app.courses.service import process_registry
from app.errors import DomainError
from app.grading.service import get_grader
from app.jobs import tasks
from app.jobs.base import JobQueue
from app.jobs.models import Job
from app.jobs.tasks import JobFailed
from app.users.models import User

KIND = "check"
THREADS = 4  # checks of one exercise graded at once (the pool's own size bounds them too)
NO_JOB = "There is no such check of this course."


def exercise_of(path: str) -> str | None:
    """The exercise a course-relative path belongs to, if any."""
    parts = path.split("/")
    return parts[1] if len(parts) > 2 and parts[0] == "exercises" else None


def queue_check(
    *, session: Session, queue: JobQueue, source: CourseSource, path: str, user: User
) -> dict[str, Any] | None:
    """Queue the grading check of the exercise this file belongs to (None: not an exercise's)."""
    slug = exercise_of(path)
    if slug is None:
        return None
    job = tasks.create(
        session=session,
        kind=KIND,
        payload={"course": source.slug, "exercise": slug},
        subject=f"check:{source.slug}/{slug}",
        course_slug=source.slug,
        created_by=user.id,
    )
    session.commit()
    queue.enqueue(tasks.ref_of(job))
    return {"job": job.id, "state": job.state, "url": check_url(source.slug, job.id)}


def check_url(course: str, job_id: int) -> str:
    """Where the editor polls the check."""
    return f"/api/courses/{course}/authoring/checks/{job_id}"


def check_view(*, session: Session, course_slug: str, job_id: int) -> dict[str, Any]:
    """A check job as the editor polls it: state, then `ok` and problems {file, line, message}."""
    job = session.get(Job, job_id)
    if job is None or job.kind != KIND or job.course_slug != course_slug:
        raise DomainError(404, NO_JOB)
    result = job.result or {}
    return {
        "job": job.id,
        "exercise": (job.payload or {}).get("exercise"),
        "state": job.state,
        "ok": result.get("ok") if job.state == "done" else None,
        "problems": result.get("problems", []),
        "checks": result.get("checks"),
        "seconds": result.get("seconds"),
        "error": job.error or None,
    }


def latest_check(*, session: Session, course_slug: str, path: str) -> dict[str, Any] | None:
    """The newest check of the exercise this file belongs to, with its poll `url` (None: no
    check yet, or not an exercise's file): what the edit page shows after a save."""
    slug = exercise_of(path)
    if slug is None:
        return None
    job = tasks.latest(session=session, subject=f"check:{course_slug}/{slug}")
    if job is None or job.kind != KIND:
        return None
    view = check_view(session=session, course_slug=course_slug, job_id=job.id)
    return {**view, "url": check_url(course_slug, job.id)}


def _entry_line(path: Path, name: str) -> int | None:
    """The line that defines the entry function or class (where a failing solution is shown)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    for number, line in enumerate(lines, 1):
        if line.lstrip().startswith((f"def {name}(", f"class {name}(", f"class {name}:")):
            return number
    return None


def _located(problem: Problem, check: Check, root: Path) -> Found:
    line = problem.line
    if line is None and check.kind in ("solution", "starter"):
        line = _entry_line(root / problem.path, check.exercise.meta.entry.name)
    return Found(problem.path, line, problem.message)


def grading_inputs_drafted(texts: dict[str, str], slug: str) -> bool:
    """Whether a draft changes what grades this exercise (anything but its statement,
    discussion and hints)."""
    return any(exercise_of(path) == slug and not EXERCISE_TEXT.fullmatch(path) for path in texts)


def run_check(
    *, folder: Path, texts: dict[str, str], slug: str, served: Path | None = None
) -> dict[str, Any]:
    """Grade the exercise's checks on the drafts' overlay with this process's grader.

    `served`: the served exercises folder. When no draft touches what grades the exercise, it
    grades from there: the same files, with the pool's warm interpreters and cached outputs.
    """
    started = time.perf_counter()
    with overlay(folder, texts) as root:
        exercises_dir = root / "exercises"
        drafted = served is None or grading_inputs_drafted(texts, slug)
        grade_dir = exercises_dir if drafted else served
        course = load_course(root / "lessons", exercises_dir)
        exercise = course.exercise(slug)
        if exercise is None:
            text_problems = [p for p in course.problems if f"exercises/{slug}/" in p.path]
            found = [Found(_relative(p.path, root), p.line, p.message) for p in text_problems]
            if not found:
                raise JobFailed(f"The exercise '{slug}' is not in this course any more.")
            return _result(found, 0, started)
        grader = get_grader()
        checks = exercise_checks(exercise)
        problems: list[Found] = []
        try:
            with concurrent.futures.ThreadPoolExecutor(THREADS, "check-grade") as pool:
                futures = {
                    pool.submit(
                        grader.grade,
                        exercise=slug,
                        code=c.code,
                        framework=c.framework,
                        exercises_dir=grade_dir,
                    ): c
                    for c in checks
                }
                for future in concurrent.futures.as_completed(futures):
                    check = futures[future]
                    problem = judge_check(check, future.result(), exercises_dir)
                    if problem is not None:
                        problems.append(_located(problem, check, root))
        finally:
            if drafted:
                grader.forget(slug, exercises_dir)  # the overlay is gone after this
        return _result(problems, len(checks), started)


def _relative(path: str, root: Path) -> str:
    for prefix in (f"{root}/", f"{root.resolve()}/"):
        if path.startswith(prefix):
            return path[len(prefix) :]
    return path


def _result(problems: list[Found], checks: int, started: float) -> dict[str, Any]:
    ordered = sorted(problems, key=lambda p: (p.file, p.line or 0, p.message))
    return {
        "ok": not ordered,
        "problems": [p.as_dict() for p in ordered],
        "checks": checks,
        "seconds": round(time.perf_counter() - started, 3),
    }


def check_work(run: Any) -> dict[str, Any]:
    """The `check` kind's work (`hooks.JOB_KINDS`), in a worker."""
    course, slug = str(run.payload["course"]), str(run.payload["exercise"])
    source = process_registry().source(course)
    if source is None:
        raise JobFailed(f"The course '{course}' is not served here any more.")
    with run.session_maker() as session:
        texts = {d.path: d.text for d in drafts.drafts_of(session=session, course_slug=course)}
    return run_check(folder=source.folder, texts=texts, slug=slug, served=source.exercises_dir)
