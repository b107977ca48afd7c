"""The JAX warm-up bundle: model solutions plus the SHAPES of each exercise's test inputs."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from graders.spec import SpecError, load_spec


def warmup_bundle(exercises_dir: Path) -> list[dict[str, Any]]:
    """For every JAX exercise: its model solution and zero-input stand-ins for each case."""
    bundle: list[dict[str, Any]] = []
    for folder in sorted(p for p in exercises_dir.iterdir() if p.is_dir()):
        solution = folder / "solutions" / "jax.py"
        if not solution.is_file():
            continue
        try:
            spec = load_spec(folder)
        except (SpecError, KeyError, TypeError):
            continue
        if spec.entry_kind != "function":
            continue
        cases = []
        for case in spec.cases:
            cases.append(
                {
                    name: {"shape": list(v.shape), "dtype": str(v.dtype)}
                    if isinstance(v, np.ndarray)
                    else v
                    for name, v in case.inputs.items()
                }
            )
        bundle.append(
            {"entry": spec.entry_name, "code": solution.read_text(encoding="utf-8"), "cases": cases}
        )
    return bundle


def write_warmup(exercises_dir: Path) -> str:
    """Write the bundle to a private temporary file (bound read-only into JAX sandboxes)."""
    handle = tempfile.NamedTemporaryFile(  # noqa: SIM115 - lives as long as the process
        "w", prefix="grader-warmup-", suffix=".json", delete=False, encoding="utf-8"
    )
    with handle:
        json.dump(warmup_bundle(exercises_dir), handle)
    Path(handle.name).chmod(0o644)
    return handle.name
