"""A small course folder that is its own git repository, for the authoring tests."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from tests.courses.helpers import ATTENTION, COURSE_YAML

SLUG = "tiny-course"
LESSON = """---
slug: first-steps
title: "First steps"
order: 1
summary: A short lesson for the authoring tests.
quiz:
  - id: pick-one
    type: single
    prompt: Which number is even?
    choices:
      - id: two
        text: Two
        correct: true
      - id: three
        text: Three
    explanation: Two is even; three is not.
---

# First steps

Some text with $x^2$.
"""
GIT = ["-c", "user.name=Setup", "-c", "user.email=setup@example.org"]


def git(folder: Path, *args: str) -> str:
    """Run git in the course folder (never in the project's own repository)."""
    done = subprocess.run(
        ["git", "-C", str(folder), *args], capture_output=True, text=True, check=True, timeout=20
    )
    return done.stdout.strip()


def make_course(folder: Path) -> Path:
    """One lesson with a quiz and one exercise (split-heads), committed in a new repository."""
    (folder / "lessons").mkdir(parents=True)
    (folder / "exercises").mkdir()
    (folder / "course.yaml").write_text(COURSE_YAML.format(slug=SLUG, title="Tiny"), "utf-8")
    (folder / "lessons" / "first-steps.md").write_text(LESSON, "utf-8")
    shutil.copytree(
        ATTENTION / "exercises" / "split-heads",
        folder / "exercises" / "split-heads",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    meta = folder / "exercises" / "split-heads" / "exercise.yaml"
    meta.write_text(meta.read_text("utf-8").replace("lesson: multi-head", "lesson: first-steps"))
    git(folder, "init", "-q")
    git(folder, "add", "-A")
    git(folder, *GIT, "commit", "-q", "-m", "Start")
    return folder
