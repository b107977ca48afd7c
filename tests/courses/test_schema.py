"""course.yaml is strict and documented; the first course's file at the root is valid."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from pydantic import ValidationError

from app.config import ROOT
from app.courses.schema import CourseMeta

GOOD = {"slug": "rnns", "title": "RNNs", "summary": "Recurrence.", "authors": ["Ada"]}


def test_the_root_course_yaml_names_the_first_course() -> None:
    data = yaml.safe_load((ROOT / "course.yaml").read_text(encoding="utf-8"))
    meta = CourseMeta.model_validate(data)
    assert meta.slug == "positional-embeddings"
    assert meta.title == "Positional embeddings in transformers"
    assert meta.summary and meta.authors


def test_every_field_is_described() -> None:
    properties = CourseMeta.model_json_schema()["properties"]
    assert set(properties) == {"slug", "title", "summary", "authors"}
    assert all(p.get("description") for p in properties.values())


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"slug": "Has Spaces"}, "slug"),
        ({"slug": "-lead"}, "slug"),
        ({"title": "   "}, "title"),
        ({"authors": []}, "authors"),
        ({"authors": [""]}, "authors"),
        ({"extra": 1}, "extra"),
    ],
)
def test_bad_values_are_refused_with_the_key_named(change: dict[str, Any], field: str) -> None:
    with pytest.raises(ValidationError) as info:
        CourseMeta.model_validate({**GOOD, **change})
    assert field in str(info.value)


def test_missing_keys_are_refused() -> None:
    with pytest.raises(ValidationError, match="summary"):
        CourseMeta.model_validate({k: v for k, v in GOOD.items() if k != "summary"})
