"""The optional discussion.md: loaded and rendered when present, never fatal when broken."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from app.config import ROOT
from app.content.loader import load_course

SLUG = "position-embedding-gather"
EXERCISES = sorted(p for p in (ROOT / "exercises").iterdir() if (p / "exercise.yaml").is_file())


def _course_with(tmp_path: Path, discussion: bytes | None) -> tuple[Path, Path]:
    lessons, exercises = tmp_path / "lessons", tmp_path / "exercises"
    lessons.mkdir()
    shutil.copytree(
        ROOT / "exercises" / SLUG,
        exercises / SLUG,
        ignore=shutil.ignore_patterns("__pycache__", "discussion.md"),
    )
    if discussion is not None:
        (exercises / SLUG / "discussion.md").write_bytes(discussion)
    return lessons, exercises


def test_discussion_is_rendered_through_the_markdown_renderer(tmp_path: Path) -> None:
    text = "# Title dropped\n\nUse `np.take` when $d$ is large.\n\n<script>x()</script>\n"
    course = load_course(*_course_with(tmp_path, text.encode()))
    exercise = course.exercise(SLUG)
    assert exercise is not None
    assert "Title dropped" not in exercise.discussion_html
    assert "<code>np.take</code>" in exercise.discussion_html
    assert "<math" in exercise.discussion_html
    assert "<script>" not in exercise.discussion_html


def test_a_missing_discussion_is_fine(tmp_path: Path) -> None:
    course = load_course(*_course_with(tmp_path, None))
    exercise = course.exercise(SLUG)
    assert exercise is not None and exercise.discussion_html == ""
    assert not [p for p in course.problems if "discussion" in p.path]


def test_a_broken_discussion_is_a_problem_not_a_lost_exercise(tmp_path: Path) -> None:
    course = load_course(*_course_with(tmp_path, b"caf\xe9 au lait\n"))
    exercise = course.exercise(SLUG)
    assert exercise is not None and exercise.discussion_html == ""
    problems = [p for p in course.problems if p.path.endswith("discussion.md")]
    assert len(problems) == 1 and "UTF-8" in problems[0].message


def test_a_broken_plot_in_a_discussion_is_reported(tmp_path: Path) -> None:
    text = "Before.\n\n```plot\nname: no-such-plot\n```\n"
    course = load_course(*_course_with(tmp_path, text.encode()))
    problems = [p for p in course.problems if p.path.endswith("discussion.md")]
    assert problems and problems[0].line == 4  # the `name:` line inside the block


@pytest.mark.parametrize("folder", EXERCISES, ids=lambda p: p.name)
def test_every_exercise_has_a_discussion_of_150_to_300_words_a_lab_450(folder: Path) -> None:
    path = folder / "discussion.md"
    assert path.is_file(), f"{folder.name} has no discussion.md"
    text = re.sub(r"```.*?```", " ", path.read_text(encoding="utf-8"), flags=re.S)
    words = len(text.split())
    # A lab's discussion reports each scheme's mean and seed range by length and by position.
    most = 450 if "kind: experiment" in (folder / "exercise.yaml").read_text("utf-8") else 300
    assert 150 <= words <= most, f"{folder.name}: {words} words (at most {most})"
