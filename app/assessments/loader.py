"""Reads assessments/<slug>.yaml and checks every item against the loaded course."""

from __future__ import annotations

import itertools
import threading
from dataclasses import dataclass, field
from pathlib import Path

from app.assessments.schema import AssessmentFile, Item
from app.config import get_settings
from app.content.loader import ContentError, Course, Exercise, Problem, _load_yaml, _validate
from app.content.schemas import Question

ASSESSMENTS_DIR = "assessments"
_lock = threading.Lock()
_cache: list[tuple[Course, Path, str | None, Assessments]] = []


@dataclass
class Assessments:
    """The assessments that loaded, and a Problem for every file that did not."""

    by_slug: dict[str, AssessmentFile] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)

    def get(self, slug: str) -> AssessmentFile | None:
        """The assessment with this slug, if it loaded."""
        return self.by_slug.get(slug)

    def ordered(self) -> list[AssessmentFile]:
        """Every assessment, earliest opening first."""
        return sorted(self.by_slug.values(), key=lambda a: (a.opens, a.slug))


def find_question(course: Course, item: Item) -> Question | None:
    """The quiz question an item names, if the lesson and question exist."""
    if item.question is None:
        return None
    lesson_slug, _, question_id = item.question.partition("/")
    lesson = course.lesson(lesson_slug)
    if lesson is None:
        return None
    return next((q for q in lesson.meta.quiz if q.id == question_id), None)


def find_exercise(course: Course, item: Item) -> Exercise | None:
    """The exercise an item names, if it exists."""
    return course.exercise(item.exercise) if item.exercise else None


def item_problems(course: Course, spec: AssessmentFile) -> list[str]:
    """Items that name nothing in the course, drafts, or labs (their scores are practice only)."""
    problems: list[str] = []
    for part in spec.parts:
        for item in part.items:
            if item.question is not None:
                lesson = course.lesson(item.question.partition("/")[0])
                if lesson is None:
                    problems.append(f"question '{item.question}': there is no such lesson")
                elif find_question(course, item) is None:
                    problems.append(
                        f"question '{item.question}': the lesson's quiz has no such question"
                    )
                elif lesson.meta.draft:
                    problems.append(f"question '{item.question}': its lesson is a draft")
                continue
            exercise = find_exercise(course, item)
            if exercise is None:
                problems.append(f"exercise '{item.exercise}': there is no such exercise")
            elif exercise.meta.draft:
                problems.append(f"exercise '{item.exercise}': it is a draft")
            elif exercise.meta.experiment is not None:
                problems.append(
                    f"exercise '{item.exercise}': a lab is practice only and cannot be graded"
                )
    return problems


def overlap_problems(specs: list[AssessmentFile]) -> list[tuple[AssessmentFile, str]]:
    """Exams whose windows overlap: a student cannot sit two timed exams at once."""
    exams = sorted((s for s in specs if s.kind == "exam"), key=lambda s: (s.opens, s.slug))
    found: list[tuple[AssessmentFile, str]] = []
    for earlier, later in itertools.pairwise(exams):
        if later.opens < earlier.closes:
            found.append(
                (
                    later,
                    f"its window ({later.opens.isoformat()} to {later.closes.isoformat()}) "
                    f"overlaps the exam '{earlier.slug}' (until {earlier.closes.isoformat()})",
                )
            )
    return found


def load_assessments(root: Path, course: Course) -> Assessments:
    """Load every assessments/*.yaml under root; a broken file becomes a Problem."""
    loaded = Assessments()
    folder = root / ASSESSMENTS_DIR
    paths: dict[str, str] = {}
    for path in sorted(folder.glob("*.yaml")) if folder.is_dir() else []:
        rel = f"{ASSESSMENTS_DIR}/{path.name}"
        try:
            text = path.read_text(encoding="utf-8")
            spec = _validate(AssessmentFile, _load_yaml(text), text)
        except (ContentError, OSError, UnicodeDecodeError) as exc:
            loaded.problems.append(Problem(rel, str(exc), getattr(exc, "line", None)))
            continue
        if spec.slug != path.stem:
            loaded.problems.append(
                Problem(rel, f"slug '{spec.slug}' must equal the file name '{path.stem}'")
            )
            continue
        bad = item_problems(course, spec)
        if bad:
            loaded.problems.extend(Problem(rel, message) for message in bad)
            continue
        loaded.by_slug[spec.slug] = spec
        paths[spec.slug] = rel
    for spec, message in overlap_problems(list(loaded.by_slug.values())):
        loaded.problems.append(Problem(paths[spec.slug], message))
        del loaded.by_slug[spec.slug]
    return loaded


def course_check(course: Course, folder: Path) -> list[Problem]:
    """The folder's assessments read against this version of the course (hooks.COURSE_CHECKS):
    an item one of them asks must still be there, or the assessment would vanish."""
    return load_assessments(folder, course).problems


def assessments_for(course: Course) -> Assessments:
    """The assessments of the loaded course, from its own folder, read once per loaded course
    and content version (a refresh after an exam file changed re-reads; the lessons and
    exercises may be the same Course)."""
    root = course.root or get_settings().content_dir
    version = course.version
    with _lock:
        for cached_course, cached_root, cached_version, found in _cache:
            if cached_course is course and cached_root == root and cached_version == version:
                return found
        found = load_assessments(root, course)
        _cache[:] = [(course, root, version, found), *_cache[:7]]  # a few courses served at once
        return found
