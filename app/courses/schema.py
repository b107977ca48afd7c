"""course.yaml: the small file that makes a folder a course (issue 27); strict, so typos fail."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

SLUG_PATTERN = r"^[a-z0-9]+(?:-[a-z0-9]+)*$"
COURSE_FILE = "course.yaml"
Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]


class CourseMeta(BaseModel):
    """The keys of course.yaml, all required; nothing else is allowed."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    slug: str = Field(
        pattern=SLUG_PATTERN,
        max_length=64,
        description=(
            "Permanent id of the course and its name in URLs (/courses/<slug>/...): lower-case "
            "words joined by hyphens. Stored with every submission; never change it."
        ),
    )
    title: Annotated[Text, StringConstraints(max_length=200)] = Field(
        description="The course's name as students see it in the course list and page titles."
    )
    summary: Annotated[Text, StringConstraints(max_length=2000)] = Field(
        description="One or two sentences shown under the title in the course list."
    )
    authors: list[Annotated[Text, StringConstraints(max_length=200)]] = Field(
        min_length=1, description="Names of the people who wrote the course, at least one."
    )
