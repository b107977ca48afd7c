"""Writing a job, on the grader's side only (the sandbox reads it with protocol.read_job).

Kept apart from protocol.py, which is also bound into the sandbox, like results.py: the sandbox
never writes a job, nor decodes one from bytes already in memory.
"""

from __future__ import annotations

import io
import json
from typing import Any

import numpy as np

from graders.protocol import (
    DEFAULT_JOB_BYTES,
    MAX_JOB_HEADER_BYTES,
    Job,
    Kind,
    UnsupportedValue,
    _frame,
    _scalar,
    encode_array,
    encode_end,
    read_job,
)


def encode_job(job: Job) -> bytes:
    """Encode a job: a JSON header with scalars inline and arrays by index, then array frames."""
    arrays: list[bytes] = []
    cases: list[dict[str, Any]] = []
    for case in job.cases:
        args: dict[str, Any] = {}
        for name, value in case.args.items():
            if isinstance(value, np.ndarray):
                args[name] = {"array": len(arrays)}
                arrays.append(encode_array(len(arrays), value))
            else:
                args[name] = {"scalar": _scalar(value, f"argument {name!r}")}
        cases.append({"index": case.index, "args": args})
    header: dict[str, Any] = {"entry": job.entry_name, "kind": job.entry_kind}
    header |= {"framework": job.framework, "mode": job.mode, "code": job.code, "cases": cases}
    header["limits"] = {"memory_mb": job.memory_mb, "cpu_seconds": job.cpu_seconds}
    text = json.dumps(header, allow_nan=False, ensure_ascii=False).encode("utf-8", "surrogatepass")
    if len(text) > MAX_JOB_HEADER_BYTES:
        raise UnsupportedValue("the job header is too large")
    return b"".join([_frame(Kind.JOB, 0, 0, (), text), *arrays, encode_end(len(arrays))])


def decode_job(data: bytes, max_bytes: int = DEFAULT_JOB_BYTES) -> Job:
    """Same as protocol.read_job, for bytes already in memory."""
    return read_job(io.BytesIO(data), max_bytes)
