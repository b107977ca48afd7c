"""Every lesson opens with learning objectives and ends with its references."""

from __future__ import annotations

import re

import pytest

from app.config import ROOT
from app.content.loader import split_front_matter

LESSONS = sorted((ROOT / "lessons").glob("*.md"))


@pytest.mark.parametrize("path", LESSONS, ids=[p.stem for p in LESSONS])
def test_lesson_opens_with_objectives_and_ends_with_references(path) -> None:
    _, body = split_front_matter(path.read_text(encoding="utf-8"))
    headings = re.findall(r"^## (.+)$", body, flags=re.M)
    assert headings[0] == "Learning objectives", headings[:2]
    assert headings[-1] == "References", headings[-2:]
    objectives = body.split("## Learning objectives", 1)[1].split("\n## ", 1)[0]
    objectives = objectives.split("\n\n", 2)[-1]  # after "By the end of this lesson you can:"
    bullets = [line for line in objectives.splitlines() if line.startswith("- ")]
    assert 2 <= len(bullets) <= 4, bullets
    references = body.rsplit("## References", 1)[1]
    assert references.count("\n- ") >= 1
    assert "https://" in references
