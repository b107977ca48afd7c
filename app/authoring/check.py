"""Check on save: the loader's own checks on a copy of the course with the drafts applied.

Why an overlay: the course folder is what students are served, so drafts never touch it. The
copy holds `lessons/` and the edited exercise folders; untouched exercise folders are symlinks.
Only text is parsed (YAML, markdown, schemas); no content code runs, so this may run in the web
process. Grading checks (`validate`) of exercises are not run here yet.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from app.authoring.quiz_check import quiz_problems
from app.content.loader import Course, Problem, load_course
from app.hooks import course_problems


@dataclass(frozen=True)
class Found:
    """One problem as the editor shows it: the file, the line (if known) and a sentence."""

    file: str
    line: int | None
    message: str

    def as_dict(self) -> dict[str, object]:
        """The API's shape."""
        return {"file": self.file, "line": self.line, "message": self.message}


@contextmanager
def overlay(folder: Path, texts: Mapping[str, str | None]) -> Iterator[Path]:
    """A temporary course folder: the real one with these relative paths' texts written over
    (None: the file is deleted)."""
    with tempfile.TemporaryDirectory(prefix="authoring-") as tmp:
        root = Path(tmp)
        lessons = folder / "lessons"
        if lessons.is_dir():
            shutil.copytree(lessons, root / "lessons", symlinks=False)
        else:
            (root / "lessons").mkdir()
        (root / "exercises").mkdir()
        edited = {p.split("/")[1] for p in texts if p.startswith("exercises/")}
        source = folder / "exercises"
        for child in sorted(source.iterdir()) if source.is_dir() else []:
            if not child.is_dir():
                continue
            if child.name in edited:
                shutil.copytree(child, root / "exercises" / child.name, symlinks=False)
            else:
                (root / "exercises" / child.name).symlink_to(child.resolve())
        for path, text in texts.items():
            target = root / path
            if text is None:
                target.unlink(missing_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        yield root


def _file(problem: Problem, root: Path) -> str:
    prefixes = (str(root) + "/", str(root.resolve()) + "/")
    path = problem.path
    for prefix in prefixes:
        if path.startswith(prefix):
            return path[len(prefix) :]
    return path


def found(course: Course, root: Path) -> list[Found]:
    """The course's problems with paths relative to the course folder."""
    problems = [*course.problems, *quiz_problems(course=course, root=root)]
    return [Found(_file(p, root), p.line, p.message) for p in problems]


def exam_problems(course: Course, folder: Path) -> list[Found]:
    """What this version breaks elsewhere in the course folder (`hooks.COURSE_CHECKS`: exams
    and homework whose items it no longer has)."""
    return [Found(p.path, p.line, p.message) for p in course_problems(course, folder)]


def check_texts(folder: Path, texts: Mapping[str, str | None]) -> tuple[Course, list[Found]]:
    """Load the course with these texts applied; its content and every problem it has."""
    with overlay(folder, texts) as root:
        course = load_course(root / "lessons", root / "exercises")
        return course, found(course, root) + exam_problems(course, folder)


def _concerns(problem: Found, path: str) -> bool:
    if problem.file == path:
        return True
    parts = path.split("/")
    return parts[0] == "exercises" and problem.file.startswith(f"exercises/{parts[1]}/")


def problems_for(all_found: list[Found], served: list[Found], paths: set[str]) -> list[Found]:
    """What the editor must hear: problems in these files, and new problems anywhere else."""
    known = {(f.file, f.message) for f in served}
    return [
        f
        for f in all_found
        if any(_concerns(f, p) for p in paths) or (f.file, f.message) not in known
    ]
