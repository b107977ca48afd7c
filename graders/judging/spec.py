"""What the grader needs to know about an exercise, read from its folder (trusted files only)."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
import threading
import types
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np
import yaml
from pydantic import ValidationError

from graders import lifeline
from graders import results as result_stream
from graders.exercise_format import ExerciseMeta, MistakesFile, read_exercise_meta, read_mistakes
from graders.judging.properties import PropertyCheck, PropertyError, load_properties

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
    generated: bool = False  # drawn by cases.py's generate(); shown with its inputs when it fails
    property: str | None = None  # a function of properties.py explaining a failure


@dataclass(frozen=True)
class MistakeSpec:
    """A known misconception with the wrong code that produces it."""

    id: str
    title: str
    hint: str
    framework: str
    code: str
    mask_below: float | None = None  # values at or below this all count as one mask value
    sandboxed: bool = False  # a student's code: its outputs come from the sandbox only


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
    cache_dir: Path | None = None  # where expected outputs are kept between processes
    properties: dict[str, PropertyCheck] = field(default_factory=dict, repr=False)
    experiment: dict[str, Any] | None = None  # the `experiment` section of an experiment exercise
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
        """Expected outputs per case index (function exercises), from the disk cache or computed.

        Computing them starts a framework in a child process (seconds for JAX), which the first
        job of every new grading process would otherwise wait for.
        """
        with self._lock:
            if self._expected is None:
                self._expected = _cached_reference(self)
            return self._expected


LIBRARIES = ("numpy", "torch", "jax", "jaxlib", "flax")


def content_key(folder: Path) -> str:
    """A hash of an exercise's files and the library versions its outputs depend on."""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        if "__pycache__" in path.parts:
            continue
        digest.update(str(path.relative_to(folder)).encode() + b"\0" + path.read_bytes())
    for name in LIBRARIES:
        try:
            digest.update(f"{name}={metadata.version(name)}".encode())
        except metadata.PackageNotFoundError:
            digest.update(f"{name}=missing".encode())
    return digest.hexdigest()[:32]


def _cached_reference(spec: ExerciseSpec) -> dict[int, np.ndarray]:
    """Expected outputs from `<cache>/<slug>-<key>-expected.npz`, else computed and stored."""
    if spec.cache_dir is None:
        return _run_reference(spec)
    path = spec.cache_dir / f"{spec.slug}-{content_key(spec.folder)}-expected.npz"
    wanted = {c.index for c in spec.cases if not c.expect_error}
    if path.is_file():
        try:
            with np.load(path, allow_pickle=False) as data:
                found = {int(key): data[key] for key in data.files}
            if set(found) == wanted:
                return found
        except (OSError, ValueError, zipfile.BadZipFile):
            pass
        path.unlink(missing_ok=True)  # corrupt or stale: computed again below
    expected = _run_reference(spec)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            save: Any = np.savez  # (its allow_pickle keyword confuses the type of **arrays)
            save(handle, **{str(index): value for index, value in expected.items()})
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return expected


def _run_reference(spec: ExerciseSpec) -> dict[int, np.ndarray]:
    """Run reference.py in a child process so no framework ever starts in the grader."""
    wanted = [c.index for c in spec.cases if not c.expect_error]
    proc = subprocess.run(
        [sys.executable, "-m", "graders.judging.reference_runner", str(spec.folder)],
        capture_output=True,
        timeout=300,
        check=False,
        cwd=Path(__file__).resolve().parents[2],
        env=lifeline.child_env(),
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


GENERATED_SIZES = 5  # generate(rng, size) is called for size 1, 2, ... this many


def generated_cases(module: types.ModuleType, slug: str) -> list[dict[str, Any]]:
    """Cases from `generate(rng, size)`, smallest first, from a seed fixed per exercise.

    They run with the visible tests, in growing size, and the report stops at the first that
    fails: a student sees the smallest failing input found, not a random big one. The seed is
    fixed so expected outputs, the JAX warm-up and the known mistakes' outputs stay cached.
    """
    generate = getattr(module, "generate", None)
    if generate is None:
        return []
    if not callable(generate):
        raise SpecError(f"{slug}/cases.py: generate must be a function (rng, size)")
    rng = np.random.default_rng(zlib.crc32(slug.encode("utf-8")))
    drawn = []
    for size in range(1, GENERATED_SIZES + 1):
        raw = generate(rng, size)
        if not isinstance(raw, dict) or not isinstance(raw.get("inputs"), dict):
            raise SpecError(f"{slug}/cases.py: generate() must return a dict with an 'inputs' dict")
        shapes = ", ".join(
            f"{k} {tuple(v.shape)}" if isinstance(v, np.ndarray) else f"{k}={v}"
            for k, v in raw["inputs"].items()
        )
        name = f"generated {size} of {GENERATED_SIZES} (smallest first): {shapes}"
        drawn.append({**raw, "name": name, "hidden": False})
    return drawn


def _case(index: int, raw: Any, slug: str, *, generated: bool = False) -> Case:
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
    prop = raw.get("property")
    if prop is not None and (not isinstance(prop, str) or not prop.isidentifier()):
        raise SpecError(f"{slug}/cases.py: 'property' of case {index} must be a function name")
    return Case(
        index=index,
        name=str(raw.get("name", f"case {index + 1}")),
        hidden=bool(raw.get("hidden", False)),
        inputs=inputs,
        expect_error=bool(raw.get("expect_error", False)),
        generated=generated,
        property=prop,
    )


def _read(folder: Path) -> tuple[ExerciseMeta, MistakesFile]:
    """The folder's exercise.yaml and mistakes.yaml, through the one schema `validate` uses."""
    try:
        meta = read_exercise_meta(folder)
        mistakes = read_mistakes(folder)
    except (OSError, yaml.YAMLError) as exc:
        raise SpecError(f"cannot read the exercise files in {folder.name}: {exc}") from exc
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "(top level)"
        raise SpecError(
            f"{folder.name}: the exercise files do not follow the format ({where}: "
            f"{first['msg']}); run `python -m app validate` for every problem"
        ) from exc
    if meta.entry.kind != "experiment" and not (folder / "mistakes.yaml").is_file():
        raise SpecError(f"cannot read the exercise files in {folder.name}: no mistakes.yaml")
    return meta, mistakes


def _mistake_specs(mistakes: MistakesFile) -> list[MistakeSpec]:
    return [MistakeSpec(**m.model_dump()) for m in mistakes.mistakes]


def load_spec(folder: Path) -> ExerciseSpec:
    """Read exercise.yaml, cases.py and mistakes.yaml; visible cases come first."""
    meta, mistakes = _read(folder)
    slug = meta.slug
    if meta.entry.kind == "experiment":
        return _experiment_spec(folder, meta, mistakes)
    cases_module = _load_module(folder / "cases.py", f"cases_{slug}")
    cases_func = getattr(cases_module, "cases", None)
    if not callable(cases_func):
        raise SpecError(f"{slug}/cases.py does not define cases()")
    raw_cases = list(cases_func())
    drawn = generated_cases(cases_module, slug)
    # Visible fixed cases, then generated ones (smallest first), then hidden ones.
    ordered = [(c, False) for c in raw_cases if not c.get("hidden")]
    ordered += [(c, True) for c in drawn]
    ordered += [(c, False) for c in raw_cases if c.get("hidden")]
    cases = [_case(i, raw, slug, generated=gen) for i, (raw, gen) in enumerate(ordered)]
    try:
        properties = load_properties(folder, slug, {c.property for c in cases if c.property})
    except PropertyError as exc:
        raise SpecError(str(exc)) from exc
    return ExerciseSpec(
        slug=slug,
        folder=folder,
        entry_kind=meta.entry.kind,
        entry_name=meta.entry.name,
        frameworks=list(meta.frameworks),
        time_ms=meta.limits.time_ms,
        memory_mb=meta.limits.memory_mb,
        rtol=meta.tolerance.rtol,
        atol=meta.tolerance.atol,
        cases=cases,
        mistakes=_mistake_specs(mistakes),
        properties=properties,
    )


def _experiment_spec(folder: Path, meta: ExerciseMeta, mistakes: MistakesFile) -> ExerciseSpec:
    """An experiment has no test cases: its goals live in the `experiment` section."""
    assert meta.experiment is not None  # the schema requires it for an experiment
    return ExerciseSpec(
        slug=meta.slug,
        folder=folder,
        entry_kind="experiment",
        entry_name=meta.entry.name,
        frameworks=list(meta.frameworks),
        time_ms=meta.limits.time_ms,
        memory_mb=meta.limits.memory_mb,
        rtol=meta.tolerance.rtol,
        atol=meta.tolerance.atol,
        cases=[],
        mistakes=_mistake_specs(mistakes),
        experiment=meta.experiment.model_dump(),
    )
