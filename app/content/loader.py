"""Reads lessons and exercises from disk; a broken file becomes a Problem, never a crash."""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from app import yamlio
from app.content.digest import tree_digest
from app.content.hints import HINTS_DIR, HintError, load_hints
from app.content.plot_blocks import parse_problems
from app.content.render import plot_fences, render_content
from app.content.schemas import LessonMeta
from graders import ExerciseMeta, Mistake, MistakesFile

log = logging.getLogger(__name__)
M = TypeVar("M", bound=BaseModel)

EXERCISE_FILES = ("exercise.yaml", "statement.md", "reference.py", "cases.py", "mistakes.yaml")
EXPERIMENT_FILES = ("exercise.yaml", "statement.md", "reference.py")  # no cases: goals instead
DISCUSSION_FILE = "discussion.md"  # optional: alternatives, shown once the exercise is solved


@dataclass(frozen=True)
class Problem:
    """One thing wrong with one content file, with a line when we can find it."""

    path: str
    message: str
    line: int | None = None

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.message}"


@dataclass(frozen=True)
class Lesson:
    """A loaded lesson: its metadata and rendered body."""

    meta: LessonMeta
    html: str
    path: Path


@dataclass(frozen=True)
class Exercise:
    """A loaded exercise folder (the grader reads the Python files itself)."""

    meta: ExerciseMeta
    statement_html: str
    starters: dict[str, str]
    solutions: dict[str, str]
    mistakes: list[Mistake]
    path: Path
    discussion_html: str = ""
    hints: tuple[str, ...] = ()  # HTML of hints/1.md, hints/2.md, ... revealed one at a time


@dataclass
class Course:
    """Everything loaded, plus everything that failed to load, and which course it is: its
    permanent slug, its folder and the content version served (set by whoever placed it: the
    course registry, or `content.service.load_from_settings` for the first course)."""

    lessons: list[Lesson] = field(default_factory=list)
    exercises: list[Exercise] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    slug: str = ""
    root: Path | None = None
    version: str = ""

    def lesson(self, slug: str) -> Lesson | None:
        """The lesson with this slug, if it loaded."""
        return next((les for les in self.lessons if les.meta.slug == slug), None)

    def exercise(self, slug: str) -> Exercise | None:
        """The exercise with this slug, if it loaded."""
        return next((ex for ex in self.exercises if ex.meta.slug == slug), None)


class ContentError(Exception):
    """A file could not be turned into content; carries the line when known."""

    def __init__(self, message: str, line: int | None = None, file: str | None = None) -> None:
        super().__init__(message)
        self.line = line
        self.file = file  # the exercise's file it concerns, when not exercise.yaml


def _rel(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ContentError(f"not valid UTF-8 (byte {exc.start})") from exc


def _load_yaml(text: str, *, line_offset: int = 0) -> Any:
    try:
        return yamlio.safe_load(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        line = mark.line + 1 + line_offset if mark is not None else None
        raise ContentError(f"invalid YAML: {exc.problem}", line) from exc
    except yaml.YAMLError as exc:
        raise ContentError(f"invalid YAML: {exc}") from exc


def _key_line(text: str, key: object, line_offset: int) -> int | None:
    needle = f"{key}:"
    for number, line in enumerate(text.splitlines(), start=1):
        if line.lstrip().startswith(needle) or line.lstrip().startswith(f"- {needle}"):
            return number + line_offset
    return None


def _validate(model: type[M], data: Any, text: str, line_offset: int = 0) -> M:
    if not isinstance(data, dict):
        raise ContentError("expected a mapping of keys to values", 1 + line_offset)
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(p) for p in first["loc"]) or "(top level)"
        line = _key_line(text, first["loc"][-1], line_offset) if first["loc"] else None
        more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        raise ContentError(f"{loc}: {first['msg']}{more}", line) from exc


def split_front_matter(text: str) -> tuple[str, str]:
    """Split '---\\nyaml\\n---\\nbody' into (yaml, body)."""
    if not text.startswith("---\n"):
        raise ContentError("a lesson must start with '---' front matter", 1)
    end = text.find("\n---\n", 4)
    if end == -1:
        raise ContentError("front matter has no closing '---' line", 1)
    return text[4 : end + 1], text[end + 5 :]


def load_lesson(
    path: Path, problems: list[Problem] | None = None, root: Path | None = None
) -> Lesson:
    """Parse, validate and render one lesson file; broken plot blocks go to problems."""
    text = _read_text(path)
    front, body = split_front_matter(text)
    meta = _validate(LessonMeta, _load_yaml(front, line_offset=1), front, line_offset=1)
    if problems is not None:
        # The body starts after the opening '---', the front matter and the closing '---'.
        body_offset = front.count("\n") + 2
        problems.extend(_plot_problems(body, _rel(path, root or path.parent), body_offset))
    return Lesson(meta=meta, html=render_content(_drop_title_heading(body)), path=path)


def _plot_problems(markdown: str, rel_path: str, line_offset: int) -> list[Problem]:
    """A broken plot renders as a visible box; it is also a Problem so authors hear of it."""
    return [
        Problem(rel_path, message, line + line_offset)
        for line, message in parse_problems(plot_fences(markdown))
    ]


def _drop_title_heading(body: str) -> str:
    """The page template prints the title; a leading '# Title' line would repeat it."""
    stripped = body.lstrip("\n")
    if stripped.startswith("# "):
        return stripped.split("\n", 1)[1] if "\n" in stripped else ""
    return body


def _check_python(path: Path) -> str:
    source = _read_text(path)
    try:
        compile(source, str(path), "exec", dont_inherit=True)
    except SyntaxError as exc:
        raise ContentError(f"Python syntax error: {exc.msg}", exc.lineno) from exc
    return source


def load_exercise(folder: Path, root: Path, problems: list[Problem]) -> Exercise:
    """Load one exercise folder; missing or broken files raise with the file named."""
    meta_text = _read_text(folder / "exercise.yaml") if (folder / "exercise.yaml").is_file() else ""
    raw_meta = _load_yaml(meta_text) if meta_text else None
    is_experiment = isinstance(raw_meta, dict) and (raw_meta.get("entry") or {}).get("kind") == (
        "experiment"
    )
    for name in EXPERIMENT_FILES if is_experiment else EXERCISE_FILES:
        if not (folder / name).is_file():
            raise ContentError(f"missing required file {name}")
    meta = _validate(ExerciseMeta, raw_meta, meta_text)
    if meta.slug != folder.name:
        raise ContentError(f"slug '{meta.slug}' must equal the folder name '{folder.name}'")
    mistakes_path = folder / "mistakes.yaml"
    mistakes_text = _read_text(mistakes_path) if mistakes_path.is_file() else ""
    try:
        mistakes = _validate(MistakesFile, _load_yaml(mistakes_text) or {}, mistakes_text)
    except ContentError as exc:  # named at mistakes.yaml's line, not exercise.yaml's
        raise ContentError(str(exc), exc.line, "mistakes.yaml") from exc
    for mistake in mistakes.mistakes:
        if mistake.framework not in meta.frameworks:
            raise ContentError(
                f"mistake '{mistake.id}' uses framework {mistake.framework}, "
                f"which the exercise does not offer"
            )
    starters: dict[str, str] = {}
    solutions: dict[str, str] = {}
    for fw in meta.frameworks:
        for kind, target in (("starter", starters), ("solutions", solutions)):
            path = folder / kind / f"{fw}.py"
            if not path.is_file():
                raise ContentError(f"missing {kind}/{fw}.py for framework {fw}")
            try:
                target[fw] = _check_python(path)
            except ContentError as exc:
                problems.append(Problem(_rel(path, root), str(exc), exc.line))
                raise ContentError(f"{kind}/{fw}.py is broken") from exc
    for name in ("reference.py", "cases.py"):
        if not (folder / name).is_file():
            continue  # an experiment has no cases.py (checked above for the others)
        try:
            _check_python(folder / name)
        except ContentError as exc:
            problems.append(Problem(_rel(folder / name, root), str(exc), exc.line))
            raise ContentError(f"{name} is broken") from exc
    statement_text = _read_text(folder / "statement.md")
    problems.extend(_plot_problems(statement_text, _rel(folder / "statement.md", root), 0))
    statement = render_content(_drop_title_heading(statement_text))
    discussion = _load_discussion(folder, root, problems)
    try:
        hints = tuple(load_hints(folder))
    except (HintError, OSError, UnicodeDecodeError) as exc:
        problems.append(Problem(_rel(folder / HINTS_DIR, root), str(exc)))
        hints = ()
    return Exercise(
        meta, statement, starters, solutions, list(mistakes.mistakes), folder, discussion, hints
    )


def _load_discussion(folder: Path, root: Path, problems: list[Problem]) -> str:
    """The optional discussion.md, shown after solving; a broken one is a Problem, not fatal."""
    path = folder / DISCUSSION_FILE
    if not path.is_file():
        return ""
    try:
        text = _read_text(path)
    except (ContentError, OSError) as exc:
        problems.append(Problem(_rel(path, root), str(exc), getattr(exc, "line", None)))
        return ""
    problems.extend(_plot_problems(text, _rel(path, root), 0))
    return render_content(_drop_title_heading(text))


def load_course(lessons_dir: Path, exercises_dir: Path) -> Course:
    """The course in these folders; files byte-identical to a recent load give that Course back.

    Why: a refresh, a second app or a test's app that finds nothing changed costs a hash of the
    files (~5 ms) instead of parsing every lesson and exercise again (~150 ms). A Course is never
    changed once built, so sharing one is safe.
    """
    key = (
        str(lessons_dir.resolve()),
        tree_digest(lessons_dir.parent, [lessons_dir.name]),
        str(exercises_dir.resolve()),
        tree_digest(exercises_dir.parent, [exercises_dir.name]),
    )
    with _recent_lock:
        known = _recent.get(key)
        if known is not None:
            _recent.move_to_end(key)
            return known
    course = _read_course(lessons_dir, exercises_dir)
    with _recent_lock:
        _recent[key] = course
        while len(_recent) > RECENT_COURSES:
            _recent.popitem(last=False)
    return course


RECENT_COURSES = 8  # several courses served at once, plus a test's broken copies
_recent: OrderedDict[tuple[str, str, str, str], Course] = OrderedDict()
_recent_lock = threading.Lock()


def _read_course(lessons_dir: Path, exercises_dir: Path) -> Course:
    """Load everything that can be loaded and collect a Problem for everything else."""
    root = lessons_dir.parent
    course = Course()
    for path in sorted(lessons_dir.glob("*.md")) if lessons_dir.is_dir() else []:
        try:
            course.lessons.append(load_lesson(path, course.problems, root))
        except (ContentError, OSError) as exc:
            course.problems.append(Problem(_rel(path, root), str(exc), getattr(exc, "line", None)))
        except Exception as exc:  # one file no check foresaw must not stop the course
            course.problems.append(_unforeseen(_rel(path, root), exc))
    folders = (
        sorted(
            p for p in exercises_dir.iterdir() if p.is_dir() and not p.name.startswith((".", "_"))
        )
        if exercises_dir.is_dir()
        else []
    )
    for folder in folders:
        try:
            course.exercises.append(load_exercise(folder, root, course.problems))
        except (ContentError, OSError) as exc:
            path = folder / (getattr(exc, "file", None) or "exercise.yaml")
            course.problems.append(Problem(_rel(path, root), str(exc), getattr(exc, "line", None)))
        except Exception as exc:  # as for a lesson
            course.problems.append(_unforeseen(_rel(folder / "exercise.yaml", root), exc))
    _check_cross_references(course)
    course.lessons.sort(key=lambda les: (les.meta.order, les.meta.slug))
    course.exercises.sort(key=lambda ex: (ex.meta.order, ex.meta.slug))
    for problem in course.problems:
        log.warning("content problem: %s", problem)
    return course


def _unforeseen(path: str, exc: Exception) -> Problem:
    """A problem for an error no check names: logged with its trace, told in one sentence."""
    log.exception("content file %s could not be loaded", path)
    return Problem(path, f"could not be read: {type(exc).__name__}: {exc}", None)


def _check_cross_references(course: Course) -> None:
    seen: dict[str, Path] = {}
    items: list[Lesson | Exercise] = [*course.lessons, *course.exercises]
    for item in items:
        kind = "lesson" if isinstance(item, Lesson) else "exercise"
        key = f"{kind}:{item.meta.slug}"
        if key in seen:
            course.problems.append(
                Problem(
                    str(item.path),
                    f"duplicate {kind} slug '{item.meta.slug}' (also in {seen[key]})",
                )
            )
        seen[key] = item.path
    uuids: dict[str, str] = {}
    for ex in course.exercises:
        other = uuids.setdefault(str(ex.meta.uuid), ex.meta.slug)
        if other != ex.meta.slug:
            course.problems.append(
                Problem(
                    str(ex.path),
                    f"exercise '{ex.meta.slug}' has the uuid of '{other}': a copied folder keeps "
                    "its uuid, so give this one a new one (python -c 'import uuid; "
                    "print(uuid.uuid4())')",
                )
            )
    lesson_slugs = {les.meta.slug for les in course.lessons}
    experiments = {ex.meta.slug for ex in course.exercises if ex.meta.experiment is not None}
    for les in course.lessons:
        for slug in les.meta.labs:
            if slug not in experiments:
                course.problems.append(
                    Problem(
                        str(les.path),
                        f"labs: '{slug}' is not an experiment exercise; its figure is hidden",
                    )
                )
    for ex in course.exercises:
        if ex.meta.lesson and ex.meta.lesson not in lesson_slugs:
            course.problems.append(
                Problem(
                    f"exercises/{ex.meta.slug}/exercise.yaml",
                    f"lesson '{ex.meta.lesson}' does not exist (yet); the link is hidden",
                )
            )
