"""Architecture rules that code review would otherwise have to remember."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

from pydantic import BaseModel

from app.config import ROOT
from app.content import schemas


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_graders_never_import_app() -> None:
    offenders = [p for p in (ROOT / "graders").rglob("*.py") if "app" in _imports(p)]
    assert offenders == []


def test_every_content_schema_field_has_a_description() -> None:
    models = [
        m
        for _, m in inspect.getmembers(schemas, inspect.isclass)
        if issubclass(m, BaseModel) and m.__module__ == schemas.__name__
    ]
    assert len(models) >= 8
    missing = [
        f"{m.__name__}.{name}"
        for m in models
        for name, field in m.model_fields.items()
        if not field.description
    ]
    assert missing == []


def test_content_schemas_forbid_unknown_keys() -> None:
    assert schemas.Strict.model_config.get("extra") == "forbid"


def _app_imports(path: Path) -> set[str]:
    """Second-level names (`app.<domain>`) a module imports."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("app."):
            names.add(node.module.split(".")[1])
        elif isinstance(node, ast.Import):
            names |= {a.name.split(".")[1] for a in node.names if a.name.startswith("app.")}
    return names


def test_only_the_top_reaches_into_instructor() -> None:
    # The app's assembly (routes, CLI, the list of every model) may; no domain below it may.
    top = {
        ROOT / "app" / name
        for name in ("instructor", "main.py", "cli", "models.py", "live_reload.py")
    }
    offenders = [
        str(p.relative_to(ROOT))
        for p in (ROOT / "app").rglob("*.py")
        if not any(p == t or t in p.parents for t in top) and "instructor" in _app_imports(p)
    ]
    assert offenders == []


def test_deadlines_sit_below_submissions_and_quizzes() -> None:
    allowed = {"config", "db", "models_base", "deadlines"}
    used = set().union(*(_app_imports(p) for p in (ROOT / "app" / "deadlines").rglob("*.py")))
    assert used <= allowed, used - allowed
