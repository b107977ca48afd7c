"""What the grader needs to know about an exercise, read from its folder (trusted files only)."""

from __future__ import annotations

import subprocess
import sys
import threading
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from graders import results as result_stream
from graders.compare import DEFAULT_ATOL, DEFAULT_RTOL

Value = np.ndarray | int | float


class SpecError(Exception):
    """The exercise folder cannot be used for grading."""


@dataclass(frozen=True)
class Case:
    """One test input; hidden ones never show their inputs to students."""

    index: int
    name: str
    hidden: bool
    inputs: dict[str, Value]
    expect_error: bool = False


@dataclass(frozen=True)
class MistakeSpec:
    """A known misconception with the wrong code that produces it."""

    id: str
    title: str
    hint: str
    framework: str
    code: str


@dataclass
class ExerciseSpec:
    """An exercise as the grader sees it; expected outputs are computed once and cached."""

    slug: str
    folder: Path
    entry_kind: str
    entry_name: str
    frameworks: list[str]
    time_ms: int
    memory_mb: int
    rtol: float
    atol: float
    cases: list[Case]
    mistakes: list[MistakeSpec]
    _expected: dict[int, np.ndarray] | None = field(default=None, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def visible_cases(self) -> list[Case]:
        """Cases shown to students (run mode grades only these)."""
        return [c for c in self.cases if not c.hidden]

    def reference(self) -> Callable[..., Any]:
        """The trusted reference function, loaded from reference.py outside any sandbox."""
        module = _load_module(self.folder / "reference.py", f"reference_{self.slug}")
        name = "reference" if self.entry_kind == "class" else self.entry_name
        func = getattr(module, name, None)
        if not callable(func):
            raise SpecError(f"{self.slug}/reference.py does not define {name}()")
        return func  # type: ignore[no-any-return]

    def expected(self) -> dict[int, np.ndarray]:
        """Expected outputs per case index (function exercises), computed once per process."""
        with self._lock:
            if self._expected is None:
                self._expected = _run_reference(self)
            return self._expected


def _run_reference(spec: ExerciseSpec) -> dict[int, np.ndarray]:
    """Run reference.py in a child process so no framework ever starts in the grader."""
    wanted = [c.index for c in spec.cases if not c.expect_error]
    proc = subprocess.run(
        [sys.executable, "-m", "graders.reference_runner", str(spec.folder)],
        capture_output=True,
        timeout=300,
        check=False,
        cwd=Path(__file__).resolve().parent.parent,
    )
    if proc.returncode != 0:
        tail = proc.stderr.decode("utf-8", "replace")[-2000:]
        raise SpecError(f"{spec.slug}/reference.py failed: {tail}")
    results = result_stream.decode_results(proc.stdout, wanted, 1 << 30)
    expected: dict[int, np.ndarray] = {}
    for index, value in results.items():
        if not isinstance(value, np.ndarray):
            raise SpecError(f"{spec.slug}/reference.py raised on case {index}: {value.message}")
        expected[index] = value
    return expected


def _load_module(path: Path, name: str) -> types.ModuleType:
    try:
        source = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SpecError(f"cannot read {path.name}: {exc.strerror}") from exc
    module = types.ModuleType(name)
    module.__file__ = str(path)
    sys.modules[name] = module  # dataclass-based classes (Flax modules) look themselves up here
    exec(compile(source, str(path), "exec"), module.__dict__)  # noqa: S102 - trusted content
    return module


def _case(index: int, raw: Any, slug: str) -> Case:
    if not isinstance(raw, dict) or not isinstance(raw.get("inputs"), dict):
        raise SpecError(f"{slug}/cases.py: case {index} must be a dict with an 'inputs' dict")
    inputs: dict[str, Value] = {}
    for key, value in raw["inputs"].items():
        if isinstance(value, np.ndarray):
            inputs[str(key)] = value
        elif isinstance(value, bool) or not isinstance(value, int | float | np.integer):
            raise SpecError(
                f"{slug}/cases.py: input {key!r} of case {index} must be an array or a number"
            )
        else:
            inputs[str(key)] = value.item() if isinstance(value, np.integer) else value
    return Case(
        index=index,
        name=str(raw.get("name", f"case {index + 1}")),
        hidden=bool(raw.get("hidden", False)),
        inputs=inputs,
        expect_error=bool(raw.get("expect_error", False)),
    )


def load_spec(folder: Path) -> ExerciseSpec:
    """Read exercise.yaml, cases.py and mistakes.yaml; visible cases come first."""
    try:
        meta = yaml.safe_load((folder / "exercise.yaml").read_text(encoding="utf-8"))
        mistakes_raw = yaml.safe_load((folder / "mistakes.yaml").read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise SpecError(f"cannot read the exercise files in {folder.name}: {exc}") from exc
    slug = str(meta["slug"])
    cases_func = getattr(_load_module(folder / "cases.py", f"cases_{slug}"), "cases", None)
    if not callable(cases_func):
        raise SpecError(f"{slug}/cases.py does not define cases()")
    raw_cases = list(cases_func())
    ordered = [c for c in raw_cases if not c.get("hidden")] + [
        c for c in raw_cases if c.get("hidden")
    ]
    limits = meta.get("limits") or {}
    tolerance = meta.get("tolerance") or {}
    return ExerciseSpec(
        slug=slug,
        folder=folder,
        entry_kind=str(meta["entry"]["kind"]),
        entry_name=str(meta["entry"]["name"]),
        frameworks=[str(f) for f in meta["frameworks"]],
        time_ms=int(limits.get("time_ms", 2000)),
        memory_mb=int(limits.get("memory_mb", 1024)),
        rtol=float(tolerance.get("rtol", DEFAULT_RTOL)),
        atol=float(tolerance.get("atol", DEFAULT_ATOL)),
        cases=[_case(i, raw, slug) for i, raw in enumerate(ordered)],
        mistakes=[MistakeSpec(**m) for m in (mistakes_raw or {}).get("mistakes", [])],
    )
