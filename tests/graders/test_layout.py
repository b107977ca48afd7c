"""The trust zones of graders/: what runs inside the sandbox imports only what the sandbox gets.

(That graders/ never imports app/ is tests/test_layout.py's rule.)
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

from graders.host.binds import INSIDE, SOURCES

FRAMEWORKS = {"numpy", "torch", "jax", "flax"}  # the interpreter's own site-packages
SCRIPTS = sorted(p for p in INSIDE.glob("*.py") if p.name != "__init__.py")


def _imports(path: Path, *, top_level_only: bool = False) -> set[str]:
    """First names of every absolute import (or only the module-level ones)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    names: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{path.name}: a relative import has no package in the sandbox"
            names.add((node.module or "").split(".")[0])
    return names


def test_every_inside_script_is_in_the_bind_list_and_every_bound_file_exists() -> None:
    assert [p.name for p in SCRIPTS] == sorted(n for n, p in SOURCES.items() if p.parent == INSIDE)
    assert all(path.is_file() for path in SOURCES.values())


def test_inside_scripts_import_only_what_the_sandbox_binds() -> None:
    bound = {Path(name).stem for name in SOURCES}
    allowed = set(sys.stdlib_module_names) | FRAMEWORKS | bound
    offenders = {p.name: sorted(_imports(p) - allowed) for p in SCRIPTS if _imports(p) - allowed}
    assert offenders == {}
    assert not any({"graders", "app"} & _imports(p) for p in SCRIPTS)


def test_inside_scripts_load_only_protocol_when_they_start() -> None:
    # Siblings (zygote, jax_child, seccomp, ...) are imported where used, by starts that bind them.
    ours = {Path(name).stem for name in SOURCES}
    loaded = {p.name: sorted(_imports(p, top_level_only=True) & ours) for p in SCRIPTS}
    assert {name: found for name, found in loaded.items() if found not in ([], ["protocol"])} == {}


def test_the_files_bound_beside_the_inside_scripts_stay_free_of_the_project() -> None:
    # protocol.py and seccomp.py are bound too: they may import only the stdlib and numpy.
    shared = [SOURCES["protocol.py"], SOURCES["seccomp.py"]]
    allowed = set(sys.stdlib_module_names) | {"numpy"}
    assert {p.name: sorted(_imports(p) - allowed) for p in shared} == {
        "protocol.py": [],
        "seccomp.py": [],
    }
