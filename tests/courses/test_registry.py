"""Courses are found in order, versioned, and refreshed without ever serving a broken version."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from app.config import ROOT, get_settings
from app.courses.registry import Registry, discover
from app.courses.version import content_version, files_hash
from tests.courses.helpers import copy_attention, tiny_course


def _root(tmp_path: Path) -> Path:
    """A first course (copied lessons and exercises of the attention course) with courses/."""
    root = copy_attention(tmp_path / "root", slug="first")
    (root / "courses").mkdir()
    return root


def test_the_repository_serves_the_first_course_then_the_attention_course() -> None:
    sources, problems = discover(ROOT)
    assert [s.slug for s in sources] == ["positional-embeddings", "attention-step-by-step"]
    assert [s.origin for s in sources] == ["root", "courses"]
    assert problems == []


def test_order_is_root_then_courses_folder_then_extra_folders(tmp_path: Path) -> None:
    root = _root(tmp_path)
    tiny_course(root / "courses" / "b-course", "b-course")
    tiny_course(root / "courses" / "a-course", "a-course")
    (root / "courses" / "not-a-course").mkdir()  # no course.yaml: ignored, not a problem
    extra = tiny_course(tmp_path / "elsewhere", "extra")
    sources, problems = discover(root, [(extra, "setting")])
    assert [s.slug for s in sources] == ["first", "a-course", "b-course", "extra"]
    assert problems == []


def test_a_broken_or_clashing_course_yaml_is_a_problem_not_a_course(tmp_path: Path) -> None:
    root = _root(tmp_path)
    broken = tiny_course(root / "courses" / "broken", "broken")
    (broken / "course.yaml").write_text("slug: broken\ntitle: [unclosed\n", "utf-8")
    tiny_course(root / "courses" / "twin", "first")  # the first course's slug again
    bad_key = tiny_course(root / "courses" / "typo", "typo")
    (bad_key / "course.yaml").write_text(
        "slug: typo\ntitle: T\nsummary: S\nauthors: [A]\nauthor: B\n", "utf-8"
    )
    sources, problems = discover(root)
    assert [s.slug for s in sources] == ["first"]
    messages = sorted(str(p) for p in problems)
    assert any("broken/course.yaml" in m and "invalid YAML" in m for m in messages)
    assert any("twin/course.yaml" in m and "already the course in" in m for m in messages)
    assert any("typo/course.yaml" in m and "author" in m for m in messages)


def test_the_first_course_serves_without_a_course_yaml(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _root(tmp_path)
    (root / "course.yaml").unlink()
    monkeypatch.delenv("FIRST_COURSE_SLUG", raising=False)
    get_settings.cache_clear()
    sources, problems = discover(root)
    assert sources[0].slug == "root" and sources[0].origin == "root"  # its folder's name
    assert "course.yaml" in problems[0].path and "missing" in problems[0].message
    monkeypatch.setenv("FIRST_COURSE_SLUG", "old-slug")  # or the slug the settings name
    get_settings.cache_clear()
    assert discover(root)[0][0].slug == "old-slug"
    get_settings.cache_clear()


def test_version_is_the_commit_in_git_and_a_hash_elsewhere(tmp_path: Path) -> None:
    in_git = content_version(ROOT / "courses" / "attention-step-by-step")
    assert len(in_git.split("+")[0]) == 12 and not in_git.startswith("sha-")
    copy = copy_attention(tmp_path / "copy")
    version = content_version(copy)
    assert version == f"sha-{files_hash(copy)[:12]}"
    lesson = sorted((copy / "lessons").glob("*.md"))[0]
    lesson.write_text(lesson.read_text("utf-8") + "\nOne more line.\n", "utf-8")
    assert content_version(copy) != version


def test_content_loads_on_first_use_with_its_version(tmp_path: Path) -> None:
    root = _root(tmp_path)
    registry = Registry(discover(root)[0])
    entry = registry.entry("first")
    assert entry is not None and entry.content is not None
    # as many as the attention course's folders hold (it grows; the loader must keep up)
    assert len(entry.content.lessons) == len(list((root / "lessons").glob("*.md")))
    assert len(entry.content.exercises) == len(list((root / "exercises").glob("*/exercise.yaml")))
    assert entry.version.startswith("sha-")
    assert registry.entry("nope") is None


def test_a_refresh_with_new_problems_is_refused_and_the_old_version_serves(
    tmp_path: Path,
) -> None:
    root = _root(tmp_path)
    registry = Registry(discover(root)[0])
    before = registry.entry("first")
    assert before is not None and before.content is not None
    old_version, old_content = before.version, before.content
    lesson = sorted((root / "lessons").glob("*.md"))[0]
    text = lesson.read_text("utf-8")
    lesson.write_text(text.replace("title:", "titel:", 1), "utf-8")
    result = registry.refresh("first")
    assert not result.applied and result.version != old_version
    assert any(lesson.name in p.path for p in result.problems)
    assert "last good version keeps serving" in result.message
    after = registry.entry("first")
    assert after is not None
    assert after.content is old_content and after.version == old_version
    assert after.refused is not None and after.refused.problems == result.problems
    lesson.write_text(text.replace("Learning objectives", "Learning goals", 1), "utf-8")
    fixed = registry.refresh("first")
    assert fixed.applied and fixed.problems == []
    served = registry.entry("first")
    assert served is not None and served.version == fixed.version != old_version
    assert served.refused is None and served.content is not old_content


def test_a_refresh_that_changes_the_slug_is_refused(tmp_path: Path) -> None:
    root = _root(tmp_path)
    extra = tiny_course(tmp_path / "x", "x-course")
    registry = Registry(discover(root, [(extra, "setting")])[0])
    (extra / "course.yaml").write_text(
        "slug: renamed\ntitle: T\nsummary: S\nauthors: [A]\n", "utf-8"
    )
    result = registry.refresh("x-course")
    assert not result.applied and "permanent" in result.problems[0].message


def test_a_course_removed_from_disk_keeps_serving_its_last_version(tmp_path: Path) -> None:
    root = _root(tmp_path)
    extra = tiny_course(tmp_path / "x", "x-course")
    registry = Registry(discover(root, [(extra, "setting")])[0])
    assert registry.content("x-course") is not None
    shutil.rmtree(extra)
    result = registry.refresh("x-course")
    assert not result.applied
    content = registry.content("x-course")
    assert content is not None and len(content.lessons) == 1
