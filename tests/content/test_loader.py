"""Content loading: good files load, each broken file becomes a Problem, the rest survives."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from app.content.loader import load_course

LESSON = """---
slug: {slug}
title: A lesson
order: {order}
summary: Short.
quiz:
  - id: shape-q
    type: shape
    prompt: Shape of the table?
    answer: [max_len, d_model]
    explanation: One row per position.
---
# Body

Math: $x$.
"""

EXERCISE_YAML = """slug: {slug}
uuid: {uuid}
title: Gather
order: 1
summary: Gather rows.
lesson: good
entry: {{kind: function, name: gather, signature: "gather(positions, table)"}}
frameworks: [numpy, torch]
"""

MISTAKES = """mistakes:
  - id: one-based
    title: One-based positions
    hint: Positions start at zero.
    framework: numpy
    code: |
      def gather(positions, table):
          return table[positions.astype(int) + 1]
"""


def write_lesson(root: Path, name: str, slug: str, order: int = 1) -> Path:
    path = root / "lessons" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(LESSON.format(slug=slug, order=order), encoding="utf-8")
    return path


def write_exercise(root: Path, slug: str) -> Path:
    folder = root / "exercises" / slug
    (folder / "starter").mkdir(parents=True)
    (folder / "solutions").mkdir()
    (folder / "exercise.yaml").write_text(
        EXERCISE_YAML.format(slug=slug, uuid=uuid.uuid4()), encoding="utf-8"
    )
    (folder / "statement.md").write_text("Gather rows with $T$ positions.\n", encoding="utf-8")
    (folder / "reference.py").write_text("def gather(positions, table):\n    return table\n")
    (folder / "cases.py").write_text("def cases():\n    return []\n")
    (folder / "mistakes.yaml").write_text(MISTAKES, encoding="utf-8")
    for fw in ("numpy", "torch"):
        (folder / "starter" / f"{fw}.py").write_text("def gather(positions, table):\n    ...\n")
        (folder / "solutions" / f"{fw}.py").write_text("def gather(positions, table):\n    ...\n")
    return folder


@pytest.fixture
def root(tmp_path: Path) -> Path:
    write_lesson(tmp_path, "01-good.md", "good", order=1)
    write_lesson(tmp_path, "02-second.md", "second", order=2)
    write_exercise(tmp_path, "gather")
    return tmp_path


def load(root: Path):
    return load_course(root / "lessons", root / "exercises")


def test_good_content_loads_in_order(root: Path) -> None:
    course = load(root)
    assert course.problems == []
    assert [les.meta.slug for les in course.lessons] == ["good", "second"]
    assert course.lessons[0].meta.quiz[0].type == "shape"
    assert "<math" in course.lessons[0].html
    gather = course.exercise("gather")
    assert gather is not None and gather.meta.default_framework == "numpy"
    assert set(gather.starters) == {"numpy", "torch"} and gather.mistakes[0].id == "one-based"


def test_lessons_sort_by_order_not_file_name(root: Path) -> None:
    write_lesson(root, "00-late.md", "late", order=9)
    assert [les.meta.slug for les in load(root).lessons] == ["good", "second", "late"]


@pytest.mark.parametrize(
    ("text", "expected", "line"),
    [
        ("# no front matter\n", "must start with '---' front matter", 1),
        ("---\nslug: x\n", "no closing '---'", 1),
        ("---\nslug: [unclosed\n---\nbody\n", "invalid YAML", 3),
        ("---\n- a\n- b\n---\nbody\n", "expected a mapping", 2),
        (
            "---\nslug: bad\ntitle: T\norder: 1\nsummary: S\ncolour: blue\n---\n",
            "colour: Extra inputs are not permitted",
            6,
        ),
        ("---\nslug: Bad Slug\ntitle: T\norder: 1\nsummary: S\n---\n", "slug: String should", 2),
        (
            "---\nslug: q\ntitle: T\norder: 1\nsummary: S\nquiz:\n  - id: a\n    type: single\n"
            "    prompt: P\n    explanation: E\n    choices:\n"
            "      - {id: x, text: X, correct: true}\n"
            "      - {id: y, text: Y, correct: true}\n---\n",
            "exactly one correct choice",
            None,
        ),
        (
            "---\nslug: q\ntitle: T\norder: 1\nsummary: S\nquiz:\n  - id: a\n    type: essay\n"
            "    prompt: P\n    explanation: E\n---\n",
            "does not match any of the expected tags",
            None,
        ),
    ],
)
def test_broken_lesson_is_reported_and_the_rest_served(
    root: Path, text: str, expected: str, line: int | None
) -> None:
    (root / "lessons" / "03-broken.md").write_text(text, encoding="utf-8")
    course = load(root)
    assert [les.meta.slug for les in course.lessons] == ["good", "second"]
    assert len(course.problems) == 1
    problem = course.problems[0]
    assert problem.path == "lessons/03-broken.md"
    assert expected in problem.message, problem.message
    if line is not None:
        assert problem.line == line


def test_non_utf8_lesson_is_reported(root: Path) -> None:
    (root / "lessons" / "04-latin1.md").write_bytes(b"---\nslug: caf\xe9\n---\n")
    course = load(root)
    assert "not valid UTF-8" in course.problems[0].message
    assert len(course.lessons) == 2


def test_duplicate_lesson_slug_is_reported(root: Path) -> None:
    write_lesson(root, "09-copy.md", "good", order=9)
    course = load(root)
    assert any("duplicate lesson slug 'good'" in p.message for p in course.problems)


@pytest.mark.parametrize(
    ("breakage", "expected"),
    [
        (lambda f: (f / "statement.md").unlink(), "missing required file statement.md"),
        (lambda f: (f / "starter" / "torch.py").unlink(), "missing starter/torch.py"),
        (
            lambda f: (f / "exercise.yaml").write_text(
                (f / "exercise.yaml").read_text().replace("slug: gather", "slug: other")
            ),
            "must equal the folder name",
        ),
        (
            lambda f: (f / "exercise.yaml").write_text(
                (f / "exercise.yaml").read_text().replace("[numpy, torch]", "[numpy, tensorflow]")
            ),
            "frameworks.1: Input should be 'numpy', 'torch' or 'jax'",
        ),
        (
            lambda f: (f / "mistakes.yaml").write_text(MISTAKES.replace("numpy", "jax")),
            "which the exercise does not offer",
        ),
        (lambda f: (f / "reference.py").write_text("def broken(:\n"), "reference.py is broken"),
    ],
)
def test_broken_exercise_is_reported_and_the_rest_served(
    root: Path, breakage, expected: str
) -> None:
    write_exercise(root, "healthy")
    breakage(root / "exercises" / "gather")
    course = load(root)
    assert [ex.meta.slug for ex in course.exercises] == ["healthy"]
    assert len(course.lessons) == 2
    assert any(expected in p.message for p in course.problems), course.problems


def test_syntax_error_in_starter_points_at_file_and_line(root: Path) -> None:
    (root / "exercises" / "gather" / "starter" / "numpy.py").write_text("x = 1\ndef f(:\n")
    course = load(root)
    problem = next(p for p in course.problems if p.path.endswith("starter/numpy.py"))
    assert problem.line == 2 and "syntax error" in problem.message


def test_exercise_linking_to_unknown_lesson_is_reported(root: Path) -> None:
    folder = root / "exercises" / "gather"
    text = (folder / "exercise.yaml").read_text().replace("lesson: good", "lesson: nowhere")
    (folder / "exercise.yaml").write_text(text)
    course = load(root)
    assert course.exercise("gather") is not None
    assert any("lesson 'nowhere' does not exist" in p.message for p in course.problems)


def test_missing_content_folders_give_an_empty_course(tmp_path: Path) -> None:
    course = load(tmp_path)
    assert course.lessons == [] and course.exercises == [] and course.problems == []


def test_a_copied_exercise_keeping_its_uuid_is_a_problem(root: Path) -> None:
    """The uuid is the permanent id: two folders with one uuid would share submissions."""
    original = (root / "exercises" / "gather" / "exercise.yaml").read_text()
    copy = write_exercise(root, "gather-two") / "exercise.yaml"
    copy.write_text(original.replace("slug: gather", "slug: gather-two"))
    problems = [p.message for p in load(root).problems]
    assert problems == [
        "exercise 'gather-two' has the uuid of 'gather': a copied folder keeps its uuid, so give "
        "this one a new one (python -c 'import uuid; print(uuid.uuid4())')"
    ]


def test_unchanged_files_give_the_course_already_loaded(root: Path) -> None:
    first = load(root)
    assert load(root) is first  # a refresh that finds nothing changed parses nothing


def test_a_changed_byte_is_read_again_even_at_the_same_size(root: Path) -> None:
    first = load(root)
    path = root / "lessons" / "02-second.md"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("order: 2", "order: 0"), encoding="utf-8")  # same length
    again = load(root)
    assert again is not first
    assert [les.meta.slug for les in again.lessons] == ["second", "good"]


def test_a_broken_file_fixed_and_broken_again_is_reported_each_time(root: Path) -> None:
    broken = root / "lessons" / "03-broken.md"
    broken.write_text("---\nslug: [unclosed\n---\nbody\n", encoding="utf-8")
    assert len(load(root).problems) == 1
    broken.unlink()
    assert load(root).problems == []
    broken.write_text("---\nslug: [unclosed\n---\nbody\n", encoding="utf-8")
    assert len(load(root).problems) == 1
