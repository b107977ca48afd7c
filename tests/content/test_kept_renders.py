"""Content files' markdown kept rendered in the data dir: a restart reads it (issue 54)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.config import ROOT, get_settings
from app.content import render
from app.content.loader import Course, _read_course
from app.content.render_cache import KeptRenders, renderer_key


@pytest.fixture
def restarted() -> Iterator[None]:
    """Nothing rendered in this process's memory, as in a server just started; undone after."""
    render._render_cached.cache_clear()
    try:
        yield
    finally:
        render.keep_rendered_content(None)
        render._render_cached.cache_clear()


def _pages(course: Course) -> dict[str, str]:
    lessons = {f"lesson {lesson.meta.slug}": lesson.html for lesson in course.lessons}
    exercises = {
        f"exercise {ex.meta.slug}": "\n".join([ex.statement_html, ex.discussion_html, *ex.hints])
        for ex in course.exercises
    }
    return lessons | exercises


def _load() -> Course:
    """The course read from its files (past the loader's memory of recent courses)."""
    settings = get_settings()
    return _read_course(settings.lessons_dir, settings.exercises_dir)


def _no_rendering(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(_text: str) -> str:
        raise AssertionError("rendered again")

    monkeypatch.setattr(render._MD, "render", refuse)


def test_a_restart_reads_the_rendered_content_byte_for_byte(
    restarted: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fresh = _pages(_load())  # rendered as always, nothing kept
    render.keep_rendered_content(tmp_path)
    render._render_cached.cache_clear()
    assert _pages(_load()) == fresh  # rendered once more, and kept
    assert len(list(tmp_path.rglob("*.html"))) >= len(fresh)
    render._render_cached.cache_clear()  # the restart
    _no_rendering(monkeypatch)
    assert _pages(_load()) == fresh


def test_a_changed_text_is_rendered_again(
    restarted: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    render.keep_rendered_content(tmp_path)
    assert "<em>one</em>" in render.render_content("*one*")
    render._render_cached.cache_clear()
    assert "<strong>two</strong>" in render.render_content("**two**")
    _no_rendering(monkeypatch)
    assert "<em>one</em>" in render.render_content("*one*")


@pytest.mark.parametrize(
    "damage",
    [
        lambda p: p.write_text("0" * 64 + "\n<p>planted</p>\n"),  # a body its checksum denies
        lambda p: p.write_text("<p>no checksum</p>"),
        lambda p: p.write_bytes(b"\xff\xfe\x00 not text"),
        lambda p: p.write_text(""),
        lambda p: (p.unlink(), p.mkdir()),  # a folder where the file was
    ],
    ids=["wrong-checksum", "no-checksum", "not-utf8", "empty", "a-folder"],
)
def test_a_damaged_kept_file_is_rendered_again_and_replaced(
    restarted: None, tmp_path: Path, damage: object
) -> None:
    render.keep_rendered_content(tmp_path)
    html = render.render_content("Some *text* with $x^2$.")
    (kept,) = tmp_path.rglob("*.html")
    damage(kept)  # type: ignore[operator]
    render._render_cached.cache_clear()
    assert render.render_content("Some *text* with $x^2$.") == html
    if kept.is_file():  # written again, whole
        assert KeptRenders(kept.parent).get(kept.stem) == html


def test_an_unusable_directory_only_costs_the_rendering(
    restarted: None, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    render.keep_rendered_content(blocked)
    assert "<em>x</em>" in render.render_content("*x*")
    assert "<em>y</em>" in render.render_content("*y*")
    assert [r for r in caplog.records if "rendered at each start" in r.getMessage()]


def test_the_key_names_every_module_the_renderer_runs() -> None:
    """The kept HTML depends on the renderer's own code: every app module it imports is in the
    key, so a change to any of them renders afresh."""
    named = set(render.RENDERER_MODULES)
    seen: set[str] = set()
    todo = ["app.content.render"]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        tree = ast.parse((ROOT / (name.replace(".", "/") + ".py")).read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("app"):
                for alias in node.names:
                    full = f"{node.module}.{alias.name}"
                    is_module = (ROOT / (full.replace(".", "/") + ".py")).is_file()
                    todo.append(full if is_module else node.module)
    seen.discard("app.content.render_cache")  # stores the HTML, does not make it
    assert seen == named
    assert renderer_key(sorted(named)) != renderer_key(sorted(named - {"app.yamlio"}))
