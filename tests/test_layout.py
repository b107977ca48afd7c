"""Architecture rules that code review would otherwise have to remember."""

from __future__ import annotations

import ast
import collections
import inspect
from pathlib import Path

import pytest
from pydantic import BaseModel

import graders
from app.config import ROOT
from app.content import schemas
from graders import exercise_format


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
        for module in (schemas, exercise_format)
        for _, m in inspect.getmembers(module, inspect.isclass)
        if issubclass(m, BaseModel) and m.__module__ == module.__name__
    ]
    assert len(models) >= 16
    missing = [
        f"{m.__name__}.{name}"
        for m in models
        for name, field in m.model_fields.items()
        if not field.description
    ]
    assert missing == []


def test_content_schemas_forbid_unknown_keys() -> None:
    assert schemas.Strict.model_config.get("extra") == "forbid"
    assert exercise_format.Strict.model_config.get("extra") == "forbid"


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
    # The app's assembly (routes, CLI, the list of every model), the benchmark and one authoring
    # flow may; no domain below them may.
    top = {
        ROOT / "app" / name
        for name in (
            "instructor",
            "main.py",
            "cli",
            "models.py",
            "live_reload.py",
            "bench",
            "jobkinds.py",  # the typed jobs every worker runs, a regrade among them
            # Explain this mistake: a group of the class's wrong answers becomes course content.
            "authoring/explain.py",
            "authoring/explain_routes.py",
        )
    }
    offenders = [
        str(p.relative_to(ROOT))
        for p in (ROOT / "app").rglob("*.py")
        if not any(p == t or t in p.parents for t in top) and "instructor" in _app_imports(p)
    ]
    assert offenders == []


def test_deadlines_sit_below_submissions_and_quizzes() -> None:
    allowed = {"config", "db", "models_base", "offerings", "deadlines", "errors"}  # below it
    used = set().union(*(_app_imports(p) for p in (ROOT / "app" / "deadlines").rglob("*.py")))
    assert used <= allowed, used - allowed


# The floors of the app, bottom first: a room (a package or a module directly under app/) imports
# only rooms on lower floors, never one on its own floor or above. Compositions (pages that
# combine domains, authoring tools, the grading lifecycle) sit above the domains they combine.
# graders/ is the ground: it imports nothing of app/ (test_graders_never_import_app).
LAYERS: list[set[str]] = [
    {"graders", "config", "models_base", "hooks", "errors", "yamlio"},  # hooks: extension points
    {"sqlite_file"},  # SQLite's connection settings and the process's one writer lock
    {"db", "events"},  # events: the names of two hooks kept for their callers
    {"migrate", "web", "jobs"},  # schema upgrades, HTTP utilities, the queue and its transports
    {"users"},
    {"content"},
    {"offerings"},  # offerings (terms, sections), enrolments and the roles held in them
    {"courses"},  # the course registry: several content folders, their versions and refreshes
    {"deadlines"},
    {"submissions"},
    {"progress"},
    {"quiz"},
    {"grading"},  # the grading lifecycle: leases, runner, reaper, beacon, worker
    {"lti", "problems"},
    {"assessments"},  # exams and homework: quiz questions and exercises, scores sent to the LMS
    {"wiring"},  # start-up: subscribes domains to lower ones' events, locks and scores
    {"instructor"},
    {"site", "authoring", "bench", "soak"},
    {"jobkinds"},  # the typed jobs of the upper floors (regrade, a draft's check), for workers
    {"main", "models"},
    {"live_reload", "cli"},
    {"__main__"},
]


def _room(module: str) -> str | None:
    """The room a dotted module name lives in: `app.content.loader` -> `content`."""
    parts = module.split(".")
    if parts[0] == "graders":
        return "graders"
    return parts[1] if parts[0] == "app" and len(parts) > 1 else None


def _rooms_imported(path: Path) -> set[str]:
    """Rooms a file imports, at module level or inside functions (`from app import x` too)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            modules = [node.module]
            if node.module == "app":
                modules = [f"app.{alias.name}" for alias in node.names]
        else:
            continue
        found |= {room for m in modules if (room := _room(m)) is not None}
    return found


def _app_rooms() -> dict[str, list[Path]]:
    rooms: dict[str, list[Path]] = collections.defaultdict(list)
    for path in (ROOT / "app").rglob("*.py"):
        parts = path.relative_to(ROOT / "app").with_suffix("").parts
        if parts != ("__init__",):
            rooms[parts[0]].append(path)
    return rooms


def test_every_room_of_the_app_has_one_floor() -> None:
    placed = [room for floor in LAYERS for room in floor]
    assert len(placed) == len(set(placed)), "a room is on two floors"
    assert sorted(set(_app_rooms()) - set(placed)) == [], "give the new room a floor in LAYERS"
    assert sorted(set(placed) - set(_app_rooms()) - {"graders"}) == [], "a floor names a ghost"


def _climbs() -> list[str]:
    floor = {room: level for level, rooms in enumerate(LAYERS) for room in rooms}
    return sorted(
        f"{path.relative_to(ROOT)} -> {other}"
        for room, paths in _app_rooms().items()
        for path in paths
        for other in _rooms_imported(path)
        if other != room and floor[other] >= floor[room]
    )


def test_no_room_imports_its_own_floor_or_one_above() -> None:
    assert _climbs() == []


def test_no_two_packages_import_each_other() -> None:
    # The architecture review's appendix script (architecture-3.md), as a test.
    edges: dict[str, set[str]] = collections.defaultdict(set)

    def pkg(mod: str) -> str | None:
        p = mod.split(".")
        if p[0] == "graders":
            return "graders"
        if p[0] != "app" or len(p) < 2:
            return None
        return "app/" + p[1]

    for f in (ROOT / "app").rglob("*.py"):
        src = pkg(".".join(f.relative_to(ROOT).with_suffix("").parts))
        for n in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if isinstance(n, ast.ImportFrom) and n.module and n.level == 0:
                dst = pkg(n.module)
                if dst and src and dst != src:
                    edges[src].add(dst)
    pairs = sorted(
        {tuple(sorted((a, b))) for a in edges for b in edges[a] if a in edges.get(b, set())}
    )
    assert pairs == []


def test_the_app_imports_only_the_graders_public_interface() -> None:
    offenders = sorted(
        f"{path.relative_to(ROOT)}: {module}"
        for path in (ROOT / "app").rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        for module in (
            [a.name for a in node.names]
            if isinstance(node, ast.Import)
            else [node.module]
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0
            else []
        )
        if module.startswith("graders.")
        or (
            module == "graders"
            and isinstance(node, ast.ImportFrom)
            and any(a.name not in graders.__all__ for a in node.names)
        )
    )
    assert offenders == []


def test_the_graders_interface_names_what_it_exports() -> None:
    assert sorted(graders.__all__) == sorted(graders._EXPORTS)
    assert all(getattr(graders, name) is not None for name in graders.__all__)
    with pytest.raises(AttributeError, match="no attribute 'grade_everything'"):
        _ = graders.grade_everything  # type: ignore[attr-defined]
