"""Runs INSIDE the sandbox: an exercise's own code, which its editors may write in a browser.

cases.py, reference.py, properties.py and declared mistakes are content, not the platform's
code, so they run here like a student's file (issue 50): no network, no other course, no app
data or secrets; the exercise's folder is bound read-only at EXERCISE. The grader
(graders/judging/content.py) sends the jobs on fd 3, length-prefixed, then closes it; every
job's result stream goes back on fd 4 the same way. Modes (a job's `mode`):

- `cases`: cases() and generate(rng, size); two streams: the cases as JSON (frame 0, bytes),
  then their arrays (frames 0..n-1);
- `reference`: the function `entry` of reference.py on each case;
- `mistake`: a declared mistake, through the harness's own `run_job`;
- `property`: the check `entry` of properties.py on each case's inputs and output (the argument
  OUTPUT_ARG); the sentence comes back as UTF-8 bytes (an empty array: None).
"""

from __future__ import annotations

import json
import os
import sys
import types
from typing import Any

import numpy as np
import protocol  # type: ignore[import-not-found]  # bound beside this file

JOB_FD, RESULT_FD = 3, 4
EXERCISE = "/exercise"
OUTPUT_ARG = "_property_output_"
CONTENT_ERROR = "ContentError"  # the file itself is wrong: the grader says so as it is


class ContentError(Exception):
    """A content file broke its contract; the message is shown to its author as it is."""


def _read_exactly(stream: Any, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = stream.read(size - len(data))
        if not chunk:
            raise EOFError("the job stream ended early")
        data += chunk
    return data


def _read_jobs() -> list[Any]:
    import io

    jobs = []
    with os.fdopen(JOB_FD, "rb") as stream:
        while head := stream.read(8):
            if len(head) < 8:
                head += _read_exactly(stream, 8 - len(head))
            size = int.from_bytes(head, "big")
            jobs.append(protocol.read_job(io.BytesIO(_read_exactly(stream, size))))
    return jobs


def _load(name: str, module_name: str) -> types.ModuleType:
    path = f"{EXERCISE}/{name}"
    with open(path, encoding="utf-8") as handle:
        source = handle.read()
    module = types.ModuleType(module_name)
    module.__file__ = path
    sys.modules[module_name] = module  # dataclass-based classes look themselves up here
    exec(compile(source, path, "exec"), module.__dict__)  # noqa: S102 - sandboxed content
    return module


def _frames(write: Any, frames: list[bytes]) -> None:
    write(b"".join([*frames, protocol.encode_end(len(frames))]))


def _error(test: int, exc: BaseException) -> bytes:
    name = CONTENT_ERROR if isinstance(exc, ContentError) else type(exc).__name__
    frame: bytes = protocol.encode_error(test, name, str(exc))
    return frame


def _text_array(text: str) -> Any:
    return np.frombuffer(text.encode("utf-8", "backslashreplace"), dtype=np.uint8)


def _value(value: Any, arrays: list[Any]) -> dict[str, Any]:
    """A case input as the grader's JSON: an array by number, a number inline, else its type."""
    if isinstance(value, np.ndarray):
        arrays.append(value)
        return {"array": len(arrays) - 1}
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        return {"other": type(value).__name__}
    number = value.item() if isinstance(value, np.generic) else value
    if isinstance(number, float) and not np.isfinite(number):
        return {"other": "non-finite float"}
    return {"scalar": number}


def _case(raw: Any, arrays: list[Any], generated: bool) -> dict[str, Any]:
    if not isinstance(raw, dict) or not isinstance(raw.get("inputs"), dict):
        return {"malformed": True}
    prop = raw.get("property")
    return {
        "name": None if raw.get("name") is None else str(raw["name"]),
        "hidden": bool(raw.get("hidden", False)),
        "expect_error": bool(raw.get("expect_error", False)),
        "property": prop if prop is None or isinstance(prop, str) else 0,
        "generated": generated,
        "inputs": {str(k): _value(v, arrays) for k, v in raw["inputs"].items()},
    }


def _generated(module: types.ModuleType, slug: str, seed: int, sizes: int) -> list[Any]:
    generate = getattr(module, "generate", None)
    if generate is None:
        return []
    if not callable(generate):
        raise ContentError(f"{slug}/cases.py: generate must be a function (rng, size)")
    rng = np.random.default_rng(seed)
    drawn = []
    for size in range(1, sizes + 1):
        raw = generate(rng, size)
        if not isinstance(raw, dict) or not isinstance(raw.get("inputs"), dict):
            raise ContentError(
                f"{slug}/cases.py: generate() must return a dict with an 'inputs' dict"
            )
        shapes = ", ".join(
            f"{k} {tuple(v.shape)}" if isinstance(v, np.ndarray) else f"{k}={v}"
            for k, v in raw["inputs"].items()
        )
        name = f"generated {size} of {sizes} (smallest first): {shapes}"
        drawn.append({**raw, "name": name, "hidden": False})
    return drawn


def _check_properties(slug: str, names: set[Any]) -> None:
    """A case that names a property properties.py lacks is a content error now, not later."""
    if not names or not all(isinstance(n, str) and n.isidentifier() for n in names):
        return  # the grader names the malformed one
    try:
        module = _load("properties.py", "properties")
    except OSError as exc:
        raise ContentError(
            f"{slug}/cases.py names properties {sorted(names)} but properties.py "
            f"cannot be read: {exc.strerror}"
        ) from None
    for name in sorted(names):
        if not callable(getattr(module, name, None)):
            raise ContentError(f"{slug}/properties.py does not define {name}()")


def _cases(job: Any, write: Any) -> None:
    slug = job.entry_name
    args = job.cases[0].args
    try:
        module = _load("cases.py", f"cases_{slug.replace('-', '_')}")
        cases_func = getattr(module, "cases", None)
        if not callable(cases_func):
            raise ContentError(f"{slug}/cases.py does not define cases()")
        raw_cases = list(cases_func())
        drawn = _generated(module, slug, int(args["seed"]), int(args["sizes"]))
        ordered = [(c, False) for c in raw_cases if not (isinstance(c, dict) and c.get("hidden"))]
        ordered += [(c, True) for c in drawn]
        ordered += [(c, False) for c in raw_cases if isinstance(c, dict) and c.get("hidden")]
        arrays: list[Any] = []
        described = [_case(raw, arrays, generated) for raw, generated in ordered]
        _check_properties(slug, {c["property"] for c in described if c.get("property")})
        text = json.dumps({"cases": described, "arrays": len(arrays)}, allow_nan=False)
        frames = [protocol.encode_array(i, np.ascontiguousarray(a)) for i, a in enumerate(arrays)]
    except BaseException as exc:
        _frames(write, [_error(protocol.FILE_LEVEL_TEST, exc)])
        _frames(write, [])
        return
    _frames(write, [protocol.encode_array(0, _text_array(text))])
    _frames(write, frames)


def _reference(job: Any, write: Any) -> None:
    try:
        func = getattr(_load("reference.py", "reference"), job.entry_name, None)
        if not callable(func):
            raise ContentError(f"reference.py does not define {job.entry_name}()")
    except BaseException as exc:
        _frames(write, [_error(protocol.FILE_LEVEL_TEST, exc)])
        return
    frames = []
    for case in job.cases:
        try:
            frames.append(
                protocol.encode_array(case.index, np.ascontiguousarray(func(**case.args)))
            )
        except Exception as exc:
            frames.append(protocol.encode_error(case.index, type(exc).__name__, str(exc)))
    _frames(write, frames)


def _property(job: Any, write: Any) -> None:
    try:
        check = getattr(_load("properties.py", "properties"), job.entry_name, None)
        if not callable(check):
            raise ContentError(f"properties.py does not define {job.entry_name}()")
    except BaseException as exc:
        _frames(write, [_error(protocol.FILE_LEVEL_TEST, exc)])
        return
    frames = []
    for case in job.cases:
        inputs = dict(case.args)
        output = np.asarray(inputs.pop(OUTPUT_ARG), dtype=np.float64)
        try:
            sentence = check(inputs, output)
            if sentence is not None and not isinstance(sentence, str):
                raise ContentError(f"{job.entry_name}() returned {type(sentence).__name__}")
            frames.append(protocol.encode_array(case.index, _text_array(sentence or "")))
        except Exception as exc:
            frames.append(_error(case.index, exc))
    _frames(write, frames)


def main() -> None:
    """Read every job, import what they need, become the job (limits, filter), run them."""
    import harness  # type: ignore[import-not-found]  # bound beside this file
    import job_limits  # type: ignore[import-not-found]  # bound beside this file
    import seccomp  # type: ignore[import-not-found]  # bound beside this file

    seccomp.load_library()
    jobs = _read_jobs()
    for framework in sorted({job.framework for job in jobs if job.mode == "mistake"}):
        harness._import_framework(framework)
    harness._resume_collections()  # paused by harness's import; on even if no framework loaded
    result = os.fdopen(RESULT_FD, "wb", buffering=0)
    stream = harness._writer(result)
    if jobs:
        job_limits.enter_job(jobs[0])  # no process, socket or exec from here on
    for job in jobs:
        chunks: list[bytes] = []
        if job.mode == "cases":
            _cases(job, chunks.append)
        elif job.mode == "reference":
            _reference(job, chunks.append)
        elif job.mode == "property":
            _property(job, chunks.append)
        else:
            harness.run_job(job, chunks.append)
        for chunk in _streams(chunks):
            stream(len(chunk).to_bytes(8, "big") + chunk)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def _streams(chunks: list[bytes]) -> list[bytes]:
    """The chunks a job wrote, cut into result streams (each ends with an END frame)."""
    data = b"".join(chunks)
    found, start, at = [], 0, 0
    while at < len(data):
        head = protocol._parse_header(data[at : at + protocol.HEADER_SIZE])
        at += protocol.HEADER_SIZE + head.length
        if head.kind == protocol.Kind.END:
            found.append(data[start:at])
            start = at
    return found


if __name__ == "__main__":
    main()
