"""Preview's Run: grade an author's code against a draft exercise, through the real grader.

Why a copy: the draft lives in the database, never in the served folder, so the exercise's
folder is copied with its drafts written over it and graded from there by the same grader and
sandbox as `python -m app grade`; the copy and the grader's spec of it are dropped afterwards.
This is the body of the `preview_run` job (app/authoring/run_job.py), run by a consumer of
the queue, never by the web request.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from app.courses.registry import CourseSource
from app.grading.service import get_grader
from graders import Mode, Report, UnknownExercise, UnknownFramework, file_level


def draft_folder(*, texts: dict[str, str], source: CourseSource, slug: str, root: Path) -> Path:
    """Write the exercise as its drafts (TEXTS by path) make it under ROOT/exercises/SLUG."""
    exercises = root / "exercises"
    target = exercises / slug
    served = source.folder / "exercises" / slug
    if served.is_dir():
        shutil.copytree(served, target, symlinks=False)
    prefix = f"exercises/{slug}/"
    for draft_path, text in texts.items():
        if draft_path.startswith(prefix):
            path = root / draft_path
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    return exercises


def grade_draft(
    *,
    texts: dict[str, str],
    source: CourseSource,
    slug: str,
    code: str,
    framework: str,
    mode: Mode,
) -> Report:
    """The grader's report on CODE for the draft of exercise SLUG (its tests as drafted)."""
    with tempfile.TemporaryDirectory(prefix="authoring-run-") as tmp:
        exercises = draft_folder(texts=texts, source=source, slug=slug, root=Path(tmp))
        grader = get_grader()
        try:
            return grader.grade(
                exercise=slug, code=code, framework=framework, mode=mode, exercises_dir=exercises
            )
        except (UnknownExercise, UnknownFramework) as exc:
            return file_level(
                "invalid_submission",
                f"The draft cannot be graded ({exc}); fix the problems its files show first.",
                0.0,
            )
        except Exception as exc:  # a draft's own files (cases.py, reference.py) failed to load
            return file_level(
                "internal_error",
                f"The draft's tests could not be prepared: {type(exc).__name__}: {exc}",
                0.0,
            )
        finally:
            grader.forget(slug, exercises)
