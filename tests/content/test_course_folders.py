"""Course folders under courses/ are held to the first course's checks: a small course.yaml, the
lesson structure, lesson links, and `validate` with grading (what `make validate` runs in CI)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from app.config import ROOT
from app.content.loader import load_course, split_front_matter
from tests.conftest import run_cli

COURSES = sorted(p for p in (ROOT / "courses").glob("*") if (p / "course.yaml").is_file())
COURSE_KEYS = {"slug", "title", "summary", "authors"}
VALIDATE_TIMEOUT_S = 900  # grades every solution, starter, mistake and variant, as CI does
ATTENTION = ROOT / "courses" / "attention-step-by-step"


def _ids(paths: list[Path]) -> list[str]:
    return [p.name for p in paths]


def test_the_attention_course_ships() -> None:
    assert ATTENTION in COURSES


@pytest.mark.parametrize("course", COURSES, ids=_ids(COURSES))
def test_course_yaml_is_small_and_complete(course: Path) -> None:
    meta = yaml.safe_load((course / "course.yaml").read_text(encoding="utf-8"))
    assert set(meta) == COURSE_KEYS
    assert meta["slug"] == course.name
    assert re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", meta["slug"])
    assert meta["title"].strip() and meta["summary"].strip()
    assert meta["authors"] and all(isinstance(a, str) and a.strip() for a in meta["authors"])
    assert (course / "lessons").is_dir() and (course / "exercises").is_dir()


@pytest.mark.parametrize("course", COURSES, ids=_ids(COURSES))
def test_lessons_open_with_objectives_and_end_with_references(course: Path) -> None:
    lessons = sorted((course / "lessons").glob("*.md"))
    assert lessons
    for path in lessons:
        _, body = split_front_matter(path.read_text(encoding="utf-8"))
        headings = re.findall(r"^## (.+)$", body, flags=re.M)
        assert headings[0] == "Learning objectives", (path.name, headings[:2])
        assert headings[-1] == "References", (path.name, headings[-2:])
        objectives = body.split("## Learning objectives", 1)[1].split("\n## ", 1)[0]
        bullets = [line for line in objectives.splitlines() if line.startswith("- ")]
        assert 2 <= len(bullets) <= 4, (path.name, bullets)
        assert "https://" in body.rsplit("## References", 1)[1], path.name


@pytest.mark.parametrize("course", COURSES, ids=_ids(COURSES))
def test_exercises_link_lessons_in_order(course: Path) -> None:
    loaded = load_course(course / "lessons", course / "exercises")
    assert loaded.problems == []
    rank = {les.meta.slug: i for i, les in enumerate(loaded.lessons)}
    for ex in loaded.exercises:
        assert ex.meta.lesson in rank, f"{ex.meta.slug} links {ex.meta.lesson!r}"
        assert set(ex.meta.frameworks) == {"numpy", "torch", "jax"}, ex.meta.slug
        assert ex.mistakes and ex.hints, f"{ex.meta.slug} needs mistakes and hints"
    ranks = [rank[ex.meta.lesson] for ex in loaded.exercises if ex.meta.lesson]
    assert ranks == sorted(ranks)


@pytest.mark.parametrize("course", COURSES, ids=_ids(COURSES))
def test_course_passes_validate_with_grading(course: Path, data_dir: Path) -> None:
    env = {
        "APP_DATA_DIR": str(data_dir),
        "CONTENT_DIR": str(course),
        "POOL_SIZES": '{"numpy": 2, "torch": 1, "jax": 1}',  # the defaults: a warm pool
        # `make validate` records the checks it saw pass, keyed by everything a verdict depends
        # on (code, exercise files, grader, libraries): after it, only what changed is graded.
        "VALIDATE_CACHE_DIR": str(ROOT / "var" / "validate-cache"),
    }
    result = run_cli("validate", "--json", env=env, timeout=VALIDATE_TIMEOUT_S)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    summary = json.loads(result.stdout.strip().splitlines()[-1])
    assert summary["problems"] == []
    assert summary["lessons"] >= 3 and summary["quiz_questions"] >= 15
    assert summary["exercises"] >= 3 and summary["misconceptions"] >= summary["exercises"]
