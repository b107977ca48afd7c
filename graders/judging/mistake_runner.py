"""Outputs of an exercise's declared mistakes, computed once in the sandbox and kept on disk.

Declared mistakes are content an editor may write in a browser (issue 50), so they run in a
sandbox of their own (graders/judging/content.py: no network, no other course, no app data),
never in the student pool, so they never take a student's place there (a mistake marked
`sandboxed`, whose code a student wrote, runs in the pool like any submission: the engine does
that and this module never runs it). The sandbox runs each mistake through the harness's own
`run_job`, the very code that runs students' jobs, on every case, and the arrays are stored in
`<cache>/<slug>-<key>.npz`. The key hashes the exercise's files and the library versions, so a
changed exercise or library is computed again and a restart reuses the rest. Files are written
whole (temporary name, then rename) and read with allow_pickle=False; one that cannot be read is
computed again.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np

from graders import protocol
from graders.judging import content
from graders.judging.spec import ExerciseSpec, MistakeSpec, content_key, save_npz

RUN_TIMEOUT_S = 600
Outputs = dict[str, dict[int, protocol.Result]]


def trusted(spec: ExerciseSpec) -> list[MistakeSpec]:
    """The course's own mistakes; one from a student's code (`sandboxed`) is never run here."""
    return [m for m in spec.mistakes if not m.sandboxed]


def cache_key(spec: ExerciseSpec) -> str:
    """A hash of the exercise's files and the library versions the outputs depend on."""
    return content_key(spec.folder)


def load_or_compute(spec: ExerciseSpec, cache_dir: Path | None, *, background: bool) -> Outputs:
    """The outputs from the cache, or computed now (and stored) when missing or unreadable."""
    path = None if cache_dir is None else cache_dir / f"{spec.slug}-{cache_key(spec)}.npz"
    if path is not None and path.is_file():
        try:
            return _read(path, spec)
        except (OSError, ValueError, KeyError, zipfile.BadZipFile):
            path.unlink(missing_ok=True)  # corrupt or foreign: computed again below
    outputs = compute(spec, background=background)
    if path is not None:
        _write(path, outputs)
    return outputs


def compute(spec: ExerciseSpec, *, background: bool = False) -> Outputs:
    """Run every declared mistake in one sandbox (nice 19 when nobody waits for it)."""
    batch = [
        protocol.Job(
            entry_name=spec.entry_name,
            entry_kind=spec.entry_kind,
            framework=mistake.framework,
            mode="mistake",
            cases=[protocol.JobCase(c.index, dict(c.inputs)) for c in spec.cases],
            code=mistake.code,
        )
        for mistake in trusted(spec)
    ]
    if not batch:
        return {}
    try:
        streams = content.run(spec.folder, batch, background=background)
        return {
            mistake.id: content.decode(stream, _wanted(spec))
            for mistake, stream in zip(trusted(spec), streams, strict=True)
        }
    except content.ContentRunError as exc:
        raise RuntimeError(
            f"the declared mistakes of {spec.slug} could not be run: {exc}"
        ) from None


def _wanted(spec: ExerciseSpec) -> list[int]:
    slots = (0, 1, 2) if spec.entry_kind == "class" else (0,)
    return [case.index * 4 + slot for case in spec.cases for slot in slots]


def _write(path: Path, outputs: Outputs) -> None:
    arrays = {
        f"{mistake_id}:{result_id}": value
        for mistake_id, frames in outputs.items()
        for result_id, value in frames.items()
        if isinstance(value, np.ndarray)
    }
    arrays |= {f"{mistake_id}:": np.zeros(0) for mistake_id in outputs}  # ids without arrays
    save_npz(path, arrays)


def _read(path: Path, spec: ExerciseSpec) -> Outputs:
    known = {m.id for m in trusted(spec)}
    outputs: Outputs = {}
    with np.load(path, allow_pickle=False) as data:
        for key in data.files:
            mistake_id, _, result_id = key.partition(":")
            if mistake_id not in known:
                raise ValueError(f"unknown mistake {mistake_id!r} in {path.name}")
            frames = outputs.setdefault(mistake_id, {})
            if result_id:
                frames[int(result_id)] = data[key]
    if set(outputs) != known:
        raise ValueError(f"{path.name} does not hold every declared mistake")
    return outputs
