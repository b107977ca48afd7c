"""JSON Schemas of the content files, generated from the models so editors can complete keys.

VS Code (with the YAML extension) and other editors read the `# yaml-language-server: $schema=`
line that `python -m app new exercise` writes at the top of exercise.yaml and mistakes.yaml.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from app.assessments.schema import AssessmentFile
from app.content.schemas import LessonMeta
from app.courses.schema import CourseMeta
from graders import ExerciseMeta, MistakesFile

DRAFT = "https://json-schema.org/draft/2020-12/schema"
SCHEMAS: dict[str, tuple[type[BaseModel], str]] = {
    "exercise": (ExerciseMeta, "exercises/<slug>/exercise.yaml: metadata of one exercise."),
    "mistakes": (MistakesFile, "exercises/<slug>/mistakes.yaml: known wrong answers and hints."),
    "lesson": (LessonMeta, "The YAML front matter of lessons/NN-<slug>.md, with its quiz."),
    "course": (CourseMeta, "course.yaml: a course's slug, title, summary and authors."),
    "assessment": (AssessmentFile, "assessments/<slug>.yaml: a homework or an exam."),
}


def schema_for(name: str) -> dict[str, Any]:
    """One content file's schema, with a title and a description that say where it applies."""
    model, description = SCHEMAS[name]
    schema = model.model_json_schema(mode="validation")
    return {"$schema": DRAFT, "$id": f"{name}.schema.json", **schema, "description": description}


def write_schemas(out_dir: Path) -> list[Path]:
    """Write <name>.schema.json for every content file type; returns the paths written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name in SCHEMAS:
        path = out_dir / f"{name}.schema.json"
        path.write_text(json.dumps(schema_for(name), indent=2, sort_keys=True) + "\n", "utf-8")
        written.append(path)
    return written
