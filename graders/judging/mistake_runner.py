"""Outputs of an exercise's declared mistakes, computed once in a trusted child and kept on disk.

Declared mistakes are instructor code, trusted like the reference, so they need no sandbox and
must never take a student's place in it (a mistake marked `sandboxed`, whose code a student
wrote, is the exception: the engine runs it in the sandbox and this module never runs it).
A child process (the grader itself never starts torch or JAX) runs each mistake through the
harness's own `run_job`, the very code that runs students' jobs, on every case, and the arrays
are stored in `<cache>/<slug>-<key>.npz`. The key hashes the exercise's files and the library
versions, so a changed exercise or library is computed again and a restart reuses the rest.
Files are written whole (temporary name, then rename) and read with allow_pickle=False; one that
cannot be read is computed again.

Run as `python -m graders.judging.mistake_runner EXERCISE_FOLDER` (frames on stdout: for each
mistake its id's length and id, then its result stream's length and the stream).
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from graders import lifeline, protocol, results
from graders.judging.spec import ExerciseSpec, MistakeSpec, content_key, load_spec

GRADERS = Path(__file__).resolve().parents[1]
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
    """Run every declared mistake in a trusted child (nice 19 when nobody waits for it)."""
    argv = [sys.executable, "-m", "graders.judging.mistake_runner", str(spec.folder)]
    proc = subprocess.run(
        ["nice", "-n", "19", *argv] if background else argv,
        capture_output=True,
        timeout=RUN_TIMEOUT_S,
        check=False,
        cwd=GRADERS.parent,
        env=lifeline.child_env(),
    )
    if proc.returncode != 0:
        tail = proc.stderr.decode("utf-8", "replace")[-2000:]
        raise RuntimeError(f"the declared mistakes of {spec.slug} could not be run: {tail}")
    stream = io.BytesIO(proc.stdout)
    outputs: Outputs = {}
    while head := stream.read(4):
        mistake_id = stream.read(int.from_bytes(head, "big")).decode()
        size = int.from_bytes(stream.read(8), "big")
        outputs[mistake_id] = results.decode_results(
            stream.read(size), _wanted(spec), protocol.RESULT_BYTES
        )
    return outputs


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


def main() -> None:
    """Child process: run each mistake with the harness's run_job, write its result stream."""
    lifeline.die_with_parent()
    spec = load_spec(Path(sys.argv[1]))
    # the harness imports `protocol` as the sandbox binds it, beside itself
    sys.path[:0] = [str(GRADERS / "inside"), str(GRADERS)]
    import harness  # type: ignore[import-not-found]

    out = sys.stdout.buffer
    for mistake in trusted(spec):
        chunks: list[bytes] = []
        job = protocol.Job(
            entry_name=spec.entry_name,
            entry_kind=spec.entry_kind,
            framework=mistake.framework,
            mode="submit",
            cases=[protocol.JobCase(c.index, dict(c.inputs)) for c in spec.cases],
            code=mistake.code,
        )
        harness.run_job(job, chunks.append)
        stream = b"".join(chunks)
        name = mistake.id.encode()
        out.write(len(name).to_bytes(4, "big") + name + len(stream).to_bytes(8, "big") + stream)
    out.flush()


if __name__ == "__main__":
    main()
