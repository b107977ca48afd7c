"""What the grader needs to know about an exercise, read from its folder.

The YAML files are read here; the exercise's Python (cases.py, reference.py, properties.py) runs
only in the sandbox (graders/judging/content.py), since editors may write it in a browser. Case
inputs and expected outputs are cached by the folder's content hash, so a sandbox runs only when
the folder changed.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
import threading
import types
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import yaml
from pydantic import ValidationError

from graders import protocol
from graders.exercise_format import ExerciseMeta, MistakesFile, read_exercise_meta, read_mistakes
from graders.judging import content
from graders.judging.properties import PropertyCheck
from graders.versions import library_version

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
    # reference.py's outputs on a class exercise's tables, by a hash of the inputs (judge.py)
    reference_memo: dict[bytes, np.ndarray] = field(default_factory=dict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def visible_cases(self) -> list[Case]:
        """Cases shown to students (run mode grades only these)."""
        return [c for c in self.cases if not c.hidden]

    def reference_name(self) -> str:
        """The function of reference.py that computes an expected output."""
        return "reference" if self.entry_kind == "class" else self.entry_name

    def reference(self) -> Callable[..., Any]:
        """reference.py's function loaded in THIS process: for the repository's own tests of
        its own content only. The grader never calls it (graders/judging/content.py runs
        reference.py in the sandbox); tests/graders/test_content_sandbox.py checks the paths."""
        path = self.folder / "reference.py"
        module = types.ModuleType(f"reference_{self.slug.replace('-', '_')}")
        module.__file__ = str(path)
        sys.modules[module.__name__] = module  # dataclass-based classes look themselves up here
        code = compile(path.read_text(encoding="utf-8"), str(path), "exec")
        exec(code, module.__dict__)  # noqa: S102 - a test's own checkout
        func = getattr(module, self.reference_name(), None)
        if not callable(func):
            raise SpecError(f"{self.slug}/reference.py does not define {self.reference_name()}()")
        return func  # type: ignore[no-any-return]

    def reference_on(self, inputs: list[dict[str, Any]]) -> list[protocol.Result]:
        """reference.py on each of these inputs, in one sandbox run (an error per failure)."""
        job = protocol.Job(
            entry_name=self.reference_name(),
            entry_kind="function",
            framework="numpy",
            mode="reference",
            cases=[protocol.JobCase(i, args) for i, args in enumerate(inputs)],
        )
        try:
            (stream,) = content.run(self.folder, [job])
            frames = content.decode(stream, list(range(len(inputs))))
        except content.ContentRunError as exc:
            raise SpecError(f"{self.slug}/reference.py could not be run: {exc}") from None
        whole = content.file_error(frames)
        if whole is not None:
            raise SpecError(f"{self.slug}/reference.py failed: {content.describe(whole)}")
        return [frames[i] for i in range(len(inputs))]

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
        digest.update(f"{name}={library_version(name)}".encode())
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
    save_npz(path, {str(index): value for index, value in expected.items()})
    return expected


def _run_reference(spec: ExerciseSpec) -> dict[int, np.ndarray]:
    """Run reference.py in the sandbox: no framework ever starts in the grader, and the file
    (which an editor may have written in a browser) sees nothing but its own folder."""
    wanted = [c for c in spec.cases if not c.expect_error]
    found = spec.reference_on([dict(c.inputs) for c in wanted])
    expected: dict[int, np.ndarray] = {}
    for case, value in zip(wanted, found, strict=True):
        if not isinstance(value, np.ndarray):
            raise SpecError(
                f"{spec.slug}/reference.py raised on case {case.index}: {value.message}"
            )
        expected[case.index] = value
    return expected


GENERATED_SIZES = 5  # generate(rng, size) is called for size 1, 2, ... this many


def _raw_cases(folder: Path, slug: str, cache_dir: Path | None) -> list[tuple[Any, bool]]:
    """cases.py's cases in order (visible, generated, hidden), from the cache or the sandbox.

    The sandbox sends them described (names, flags, inputs by array number); they are rebuilt
    here as the dicts cases.py returned, each with whether it was generated.
    """
    key = content_key(folder)
    path = None if cache_dir is None else cache_dir / f"{slug}-{key}-cases.npz"
    described: list[dict[str, Any]] | None = None
    arrays: list[np.ndarray] = []
    memo = _CASES_SEEN.get((str(folder), key))
    if memo is not None:
        described, arrays = memo
    elif path is not None and path.is_file():
        try:
            with np.load(path, allow_pickle=False) as data:
                described = json.loads(data["meta"].tobytes().decode("utf-8"))
                arrays = [data[f"a{i}"] for i in range(len(data.files) - 1)]
        except (OSError, ValueError, KeyError, zipfile.BadZipFile):
            described = None
    if described is None:
        seed = zlib.crc32(slug.encode("utf-8"))
        try:
            described, arrays = content.read_cases(folder, slug, seed=seed, sizes=GENERATED_SIZES)
        except content.ContentRunError as exc:
            raise SpecError(str(exc)) from None
        if path is not None:
            meta = np.frombuffer(json.dumps(described).encode("utf-8"), dtype=np.uint8)
            save_npz(path, {"meta": meta, **{f"a{i}": a for i, a in enumerate(arrays)}})
    _CASES_SEEN[(str(folder), key)] = (described, arrays)
    return [(_rebuilt(item, arrays), bool(item.get("generated"))) for item in described]


# This process's cases by (folder, content key): the JAX warm-up bundles and the grader load the
# same exercises, and without a cache folder each load would start a sandbox.
_CASES_SEEN: dict[tuple[str, str], tuple[list[dict[str, Any]], list[np.ndarray]]] = {}


def _rebuilt(item: dict[str, Any], arrays: list[np.ndarray]) -> Any:
    if item.get("malformed"):
        return None  # _case says what is wrong with it
    inputs: dict[str, Any] = {}
    for name, ref in item["inputs"].items():
        if "array" in ref:
            inputs[name] = arrays[int(ref["array"])]
        elif "scalar" in ref:
            inputs[name] = ref["scalar"]
        else:
            inputs[name] = f"<{ref.get('other', 'unknown')}>"  # neither: _case refuses it
    raw: dict[str, Any] = {k: item[k] for k in ("hidden", "expect_error", "property") if k in item}
    if item.get("name") is not None:
        raw["name"] = item["name"]
    return {**raw, "inputs": inputs}


def save_npz(path: Path, arrays: dict[str, np.ndarray]) -> None:
    """Write an .npz whole (temporary name, then rename), readable without pickle."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            save: Any = np.savez  # (its allow_pickle keyword confuses the type of **arrays)
            save(handle, **arrays)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


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


def load_spec(folder: Path, cache_dir: Path | None = None) -> ExerciseSpec:
    """Read exercise.yaml and mistakes.yaml, and cases.py in the sandbox (or its cache in
    `cache_dir`); visible cases come first, then generated ones, then hidden ones."""
    meta, mistakes = _read(folder)
    slug = meta.slug
    if meta.entry.kind == "experiment":
        return _experiment_spec(folder, meta, mistakes)
    ordered = _raw_cases(folder, slug, cache_dir)
    cases = [_case(i, raw, slug, generated=gen) for i, (raw, gen) in enumerate(ordered)]
    named = sorted({c.property for c in cases if c.property})
    properties = {name: PropertyCheck(folder, name) for name in named}  # checked by the sandbox
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
        cache_dir=cache_dir,
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
