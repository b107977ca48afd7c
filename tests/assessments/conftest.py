"""A writable copy of the course with assessment files written per test, and helpers."""

from __future__ import annotations

import datetime as dt
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from fastapi.testclient import TestClient

from app.config import ROOT, get_settings
from app.main import create_app

QUESTIONS = [
    "why-position/dog-bites-man",  # single choice, right: "no"... see RIGHT
    "learned-absolute/table-shape",
    "learned-absolute/bert-base-params",
    "learned-absolute/which-models-learned",
]
RIGHT: dict[str, Any] = {
    "q:learned-absolute/table-shape": "(max_len, d_model)",
    "q:learned-absolute/bert-base-params": "393,216",
    "q:learned-absolute/which-models-learned": ["bert", "gpt-2", "gpt-3", "roberta"],
}


def exam(slug: str = "quick", **overrides: Any) -> dict[str, Any]:
    """An exam open from an hour ago for two hours, 30 minutes long, released on hand-in."""
    now = dt.datetime.now(dt.UTC).replace(microsecond=0)
    spec: dict[str, Any] = {
        "slug": slug,
        "title": "Quick exam",
        "kind": "exam",
        "opens": (now - dt.timedelta(hours=1)).isoformat(),
        "closes": (now + dt.timedelta(hours=1)).isoformat(),
        "time_limit_minutes": 30,
        "attempts": 1,
        "release": "on_submit",
        "parts": [
            {
                "title": "Tables",
                "items": [
                    {"question": "learned-absolute/table-shape"},
                    {"question": "learned-absolute/bert-base-params"},
                    {"question": "learned-absolute/which-models-learned"},
                ],
            }
        ],
    }
    spec.update(overrides)
    return spec


def write(root: Path, spec: dict[str, Any], name: str | None = None) -> Path:
    """Write one assessment file into the course copy."""
    folder = root / "assessments"
    folder.mkdir(exist_ok=True)
    path = folder / f"{name or spec['slug']}.yaml"
    path.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    return path


@pytest.fixture
def course_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, data_dir: Path) -> Path:
    """The real lessons and exercises (linked, read-only) with an empty assessments folder."""
    root = tmp_path / "content"
    root.mkdir()
    (root / "lessons").symlink_to(ROOT / "lessons")
    (root / "exercises").symlink_to(ROOT / "exercises")
    (root / "assessments").mkdir()
    monkeypatch.setenv("CONTENT_DIR", str(root))
    get_settings.cache_clear()
    return root


@pytest.fixture
def exam_client(course_root: Path) -> Iterator[TestClient]:
    """A client for the app over the course copy holding the `quick` exam."""
    write(course_root, exam())
    with TestClient(create_app()) as client:
        yield client


def copy_real(root: Path) -> None:
    """Put the shipped assessment files into the course copy."""
    for path in (ROOT / "assessments").glob("*.yaml"):
        shutil.copy(path, root / "assessments" / path.name)
