"""The JAX warm-up bundle: a model solution plus the SHAPES of its exercise's test inputs.

JAX interpreters are pooled per exercise (pool key `jax:<slug>`), so each one warms up only the
computations its jobs will need: the model solution's and the declared mistakes' (the wrong
answers a class sends most), on every test shape, loaded from the persistent cache. A job that
computes the same programs then needs no compilation at all (graders/engine.py: fast path).

It reaches a fresh interpreter over its job pipe before the interpreter says it is ready, and the
harness drops it before the job arrives; it is never a file a submission could open.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from graders.judging.spec import SpecError, load_spec


def warmup_bundles(
    exercises_dir: Path, cache_dir: Path | None = None
) -> dict[str, list[dict[str, Any]]]:
    """Per JAX exercise: its model solution and zero-input stand-ins for each case.

    `cache_dir`: where the cases are cached by content (without it, each exercise's cases.py
    runs in a sandbox once per process)."""
    bundles: dict[str, list[dict[str, Any]]] = {}
    for folder in sorted(p for p in exercises_dir.iterdir() if p.is_dir()):
        solution = folder / "solutions" / "jax.py"
        if not solution.is_file():
            continue
        try:
            spec = load_spec(folder, cache_dir)
        except (SpecError, KeyError, TypeError):
            continue
        if spec.entry_kind != "function":
            continue
        cases = _distinct(
            {
                name: {"shape": list(v.shape), "dtype": str(v.dtype)}
                if isinstance(v, np.ndarray)
                else _scalar(name, v)
                for name, v in case.inputs.items()
            }
            for case in spec.cases
        )
        codes = [solution.read_text(encoding="utf-8")]
        # A mistake a student wrote (sandboxed) never runs in the trusted warm-up or cache fill.
        codes += [m.code for m in spec.mistakes if m.framework == "jax" and not m.sandboxed]
        bundles[spec.slug] = [
            {"entry": spec.entry_name, "code": code, "cases": cases} for code in codes
        ]
    return bundles


def _distinct(cases: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each input signature once, in the cases' order: cases that differ only in their seed
    compile the same programs, and running one again costs its dispatch only (issue 54)."""
    seen: dict[str, dict[str, Any]] = {}
    for case in cases:  # as JSON: 4 and 4.0 are equal in Python but different programs
        seen.setdefault(json.dumps(case, sort_keys=True), case)
    return list(seen.values())


def _scalar(name: str, value: Any) -> Any:
    """Seeds do not change what JAX compiles, so the real (hidden) ones stay out of the bundle."""
    return 0 if "seed" in name.lower() else value


def encode_warmup(bundle: list[dict[str, Any]]) -> bytes:
    """One frame: a 4-byte big-endian length, then the bundle as JSON (empty: no warm-up)."""
    payload = json.dumps(bundle).encode("utf-8") if bundle else b""
    return struct.pack(">I", len(payload)) + payload
