"""Lessons 5 and 7 show the lab's reference runs (figure, table, link) from the cache only."""

from __future__ import annotations

import json
from pathlib import Path

from fastapi.testclient import TestClient

from app.config import ROOT
from app.content.loader import load_course
from graders.lab.experiment_reference import content_hash, seeded_names

LAB = ROOT / "exercises" / "lab-learned-vs-sinusoidal"


def _cache(data_dir: Path) -> None:
    cache = data_dir / "experiments-cache"
    cache.mkdir(parents=True, exist_ok=True)
    for scheme, name in seeded_names(LAB):
        refused = scheme == "learned"
        accuracy = {"16": 1.0, "24": None if refused else 0.71, "32": None, "64": None}
        new = {"16": None, "24": None if refused else 0.22, "32": None, "64": None}
        seen = {"16": 1.0, "24": None if refused else 1.0, "32": None, "64": None}
        run = {
            "train_length": 16,
            "accuracy_by_length": accuracy,
            "new_by_length": new,
            "trained_by_length": seen,
        }
        path = cache / f"{LAB.name}--{name}--{content_hash(LAB, name)}.json"
        path.write_text(json.dumps(run))


def test_lessons_five_and_seven_name_their_labs() -> None:
    course = load_course(ROOT / "lessons", ROOT / "exercises")
    labs = {les.meta.order: les.meta.labs for les in course.lessons}
    assert labs[5] == ["lab-learned-vs-sinusoidal"]
    assert labs[7] == ["lab-relative-extrapolation"]
    assert not [p for p in course.problems if "labs:" in p.message]


def test_the_lesson_shows_the_cached_runs_with_a_table_and_a_link(
    client: TestClient, data_dir: Path
) -> None:
    _cache(data_dir)
    page = client.get("/lessons/learned-vs-sinusoidal").text
    assert 'class="lab-figure"' in page and "<svg" in page
    assert "of the new positions only (in brackets: the positions it was trained on)" in page
    assert "Guessing scores 10%" in page and "chance (10%)" in page
    # the mean of the 3 seeds [lowest–highest seed] (the fake runs agree across seeds)
    assert '<th scope="row">learned</th><td>100% [100–100%]</td><td>refused</td>' in page
    assert "<td>22% [22–22%] (100%)</td>" in page and "16 (trained)" in page
    assert "mean of 3 seeds [lowest–highest seed]" in page
    assert 'class="lab-figure lab-positions"' in page and "Accuracy by position as a table" in page
    assert "<td>71%" not in page  # all positions mixed together are not what it shows
    assert 'href="/exercises/lab-learned-vs-sinusoidal"' in page


def test_without_cached_runs_the_lesson_says_how_to_compute_them(client: TestClient) -> None:
    page = client.get("/lessons/beyond-absolute").text
    assert "not computed yet" in page and "python -m app experiments" in page
    assert 'href="/exercises/lab-relative-extrapolation"' in page


def test_a_lab_that_is_no_experiment_is_a_problem_not_a_crash(content_dir: Path) -> None:
    lesson = content_dir / "lessons" / "05-learned-vs-sinusoidal.md"
    text = lesson.read_text(encoding="utf-8")
    lesson.write_text(
        text.replace("labs: [lab-learned-vs-sinusoidal]", "labs: [position-embedding-gather]"),
        encoding="utf-8",
    )
    course = load_course(content_dir / "lessons", content_dir / "exercises")
    messages = [p.message for p in course.problems]
    assert (
        "labs: 'position-embedding-gather' is not an experiment exercise; its figure is hidden"
        in messages
    )
    assert len(course.lessons) == 8
