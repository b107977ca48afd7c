"""Result channel: length-prefixed frames of allow-listed arrays, so no pickle ever crosses it.

Frame = fixed 84-byte little-endian header + payload:
magic b"PEGF", version u8, kind u8, dtype code u8, ndim u8, test index u32, 8 x u64 dims
(unused ones zero), payload length u64. ARRAY payloads are raw little-endian element bytes;
ERROR payloads are u16 type-name length + UTF-8 type name + UTF-8 message; END payloads are the
u32 count of frames sent before it; JOB payloads are a UTF-8 JSON header. Results: any number of
ARRAY/ERROR frames, then END. A job: one JOB frame, ARRAY frames numbered 0..n-1, then END.
Only the grader writes jobs (jobs.py) and reads results (results.py): those stay out of the sandbox.
"""

from __future__ import annotations

import json
import math
import os
import struct
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any, Final, Protocol

import numpy as np

MAGIC: Final = b"PEGF"
VERSION: Final = 1
MAX_NDIM: Final = 8
MAX_DIM: Final = 2**31 - 1
MAX_ELEMENTS: Final = 2**40
MAX_TYPE_NAME_BYTES: Final = 200
MAX_MESSAGE_BYTES: Final = 4000
MAX_JOB_HEADER_BYTES: Final = 2**20
DEFAULT_JOB_BYTES: Final = 256 * 2**20
RESULT_BYTES: Final = 64 * 2**20  # all result frames of one job together
RESULT_TOO_LARGE: Final = "ResultTooLarge"  # error type the harness sends for an oversized output
GRADER_FAULT: Final = "GraderFault"  # the job process could not set up its limits: not the code's
# A job forked from a warmed JAX server exits with this code when the code needs a compilation
# (which cannot run in a forked child): the grader runs it again in a fresh JAX process.
NEEDS_FRESH_JAX: Final = 86
# A JAX child's exit status once it wrote every result after compiling on a client of its own
# (graders/jax_child.py): not a fault, only what the benchmark counts as a new compilation.
RAN_AFTER_RESET: Final = 87
FILE_LEVEL_TEST: Final = 2**32 - 1
# Inside the sandbox the grader's files sit flat in SANDBOX_DIR (graders/host/binds.py lists
# them) and the JAX compilation cache is bound read-only below it (graders/host/jax_cache.py).
SANDBOX_DIR: Final = "/grader"
SANDBOX_JAX_CACHE: Final = "/grader/jax-cache"
# A function or class job's result ids: case_index * SLOTS + slot (a class job uses slots 0-2).
SLOTS: Final = 4
# An experiment's frame ids (graders/inside/experiment_harness.py sends, graders/lab/ reads):
# the training's failure, the loss curve and the position picture; REFUSED_ID + i (the error
# that refused length i), PREDICTED_ID + i (the answers on length i), CHECK_ID + i (the output
# on probe i); PROGRESS_ID carries [step, steps, loss] while it trains.
TRAINING_ID: Final = 0
LOSSES_ID: Final = 1
PICTURE_ID: Final = 2
REFUSED_ID: Final = 100
PREDICTED_ID: Final = 200
CHECK_ID: Final = 300
PROGRESS_ID: Final = FILE_LEVEL_TEST - 1
LAB_SLOTS: Final = ("absolute", "relative")  # an experiment job's `slot` scalar indexes this
_HEADER: Final = struct.Struct("<4sBBBBI8QQ")
HEADER_SIZE: Final = _HEADER.size
_CHUNK: Final = 2**20

Array = np.ndarray[Any, np.dtype[Any]]
Scalar = int | float


class Kind(IntEnum):
    """Frame kinds; the numbers are part of the wire format."""

    ARRAY = 1
    ERROR = 2
    END = 3
    JOB = 4


_DTYPES: Final[dict[int, np.dtype[Any]]] = {
    code: np.dtype(name)
    for code, name in enumerate(("?", "<i1", "<i2", "<i4", "<i8", "u1", "<f2", "<f4", "<f8"), 1)
}
_KINDS: Final = frozenset(int(k) for k in Kind)
_LIMITS: Final = {
    Kind.END: 4,
    Kind.ERROR: 2 + MAX_TYPE_NAME_BYTES + MAX_MESSAGE_BYTES,
    Kind.JOB: MAX_JOB_HEADER_BYTES,
}
_CODES: Final = {(dt.kind, dt.itemsize): code for code, dt in _DTYPES.items()}


class ProtocolError(Exception):
    """The channel did not carry a well-formed frame stream; `partial` keeps what was decoded."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.partial: dict[int, Result] = {}


class TruncatedStream(ProtocolError):
    """The stream stopped in the middle of a frame or before END (crash, kill or timeout)."""


class MalformedFrame(ProtocolError):
    """A header or payload broke the format (garbage, bit flips, lies about sizes)."""


class OverBudget(ProtocolError):
    """The output is larger than the byte budget allows (an output flood)."""


class UnexpectedFrame(ProtocolError):
    """A frame that was not asked for: wrong kind, unrequested or duplicate test, trailing data."""


class IncompleteResults(ProtocolError):
    """END arrived, but its count or the set of answered tests does not add up."""


class UnsupportedValue(ProtocolError):
    """The encoder was given something the channel refuses to carry."""


@dataclass(frozen=True)
class RaisedError:
    """A test raised inside the sandbox: only the type name and a capped message come back."""

    type_name: str
    message: str


Result = Array | RaisedError


@dataclass(frozen=True)
class JobCase:
    """One test case's inputs, keyed by argument name."""

    index: int
    args: dict[str, Array | Scalar]


@dataclass(frozen=True)
class Job:
    """What the sandbox is asked to run; never expected values or hidden-test flags."""

    entry_name: str
    entry_kind: str
    framework: str
    mode: str
    cases: list[JobCase] = field(default_factory=list)
    code: str | None = None
    memory_mb: int = 0  # the exercise's limit, applied by the job process to itself (0: none)
    cpu_seconds: int = 0  # CPU budget of the job process (0: the sandbox's)


class ByteSource(Protocol):
    """Anything with a blocking `read(n)`: a pipe, a file, io.BytesIO."""

    def read(self, size: int, /) -> bytes | None: ...


def _frame(kind: Kind, test: int, dtype_code: int, shape: tuple[int, ...], payload: bytes) -> bytes:
    if not 0 <= test <= FILE_LEVEL_TEST:
        raise UnsupportedValue(f"test index {test} does not fit the header")
    dims = list(shape) + [0] * (MAX_NDIM - len(shape))
    head = _HEADER.pack(MAGIC, VERSION, kind, dtype_code, len(shape), test, *dims, len(payload))
    return head + payload


def encode_array(test: int, arr: Array) -> bytes:
    """Encode one plain array; refuses dtypes and ranks the decoder would refuse."""
    arr = np.asarray(arr)
    code = _CODES.get((arr.dtype.kind, arr.dtype.itemsize))
    if code is None:
        raise UnsupportedValue(f"arrays of dtype {arr.dtype} cannot be sent; convert to float32")
    if arr.ndim > MAX_NDIM or any(d > MAX_DIM for d in arr.shape):
        raise UnsupportedValue(f"an array of shape {arr.shape} cannot be sent")
    data = np.ascontiguousarray(arr, dtype=_DTYPES[code]).tobytes()
    return _frame(Kind.ARRAY, test, code, tuple(int(d) for d in arr.shape), data)


def _utf8_capped(text: str, cap: int) -> bytes:
    raw = text.encode("utf-8", "backslashreplace")
    return raw[:cap].decode("utf-8", "ignore").encode("utf-8")


def encode_error(test: int, exc_type: str, message: str) -> bytes:
    """Encode 'this test raised'; both strings are cut to their caps at a character boundary."""
    name = _utf8_capped(exc_type, MAX_TYPE_NAME_BYTES)
    payload = struct.pack("<H", len(name)) + name + _utf8_capped(message, MAX_MESSAGE_BYTES)
    return _frame(Kind.ERROR, test, 0, (), payload)


def encode_end(count: int) -> bytes:
    """Encode the clean end of a stream; `count` is the number of frames sent before it."""
    if not 0 <= count < 2**32:
        raise UnsupportedValue(f"an END count of {count} does not fit the header")
    return _frame(Kind.END, 0, 0, (), struct.pack("<I", count))


class _Reader:
    """Reads exact byte counts from a stream or fd, never past the byte budget."""

    def __init__(self, source: ByteSource | int, max_bytes: int) -> None:
        self._source = source
        self._left = max_bytes

    def _chunk(self, size: int) -> bytes:
        try:
            if isinstance(self._source, int):
                chunk: object = os.read(self._source, size)
            else:
                chunk = self._source.read(size)
        except (OSError, ValueError) as exc:
            raise TruncatedStream(f"the result channel could not be read ({exc})") from None
        if not isinstance(chunk, bytes | bytearray):
            raise MalformedFrame("the result channel did not return bytes")
        return bytes(chunk)

    def exact(self, size: int, what: str, *, eof_ok: bool = False) -> bytes:
        """Read exactly `size` bytes; with eof_ok, an immediate clean EOF returns b""."""
        if size > self._left:
            raise OverBudget(
                f"the output is too large: {what} needs {size} more bytes but only "
                f"{max(self._left, 0)} remain of the limit"
            )
        parts: list[bytes] = []
        got = 0
        while got < size:
            chunk = self._chunk(min(size - got, _CHUNK))
            if not chunk and eof_ok and not got:
                return b""
            if not chunk:
                raise TruncatedStream(
                    f"the output stopped in the middle of {what} ({got} of {size} bytes arrived)"
                )
            parts.append(chunk)
            got += len(chunk)
        self._left -= size
        return b"".join(parts)

    def at_eof(self) -> bool:
        return not self._chunk(1)


@dataclass(frozen=True)
class _Header:
    kind: Kind
    test: int
    dtype: np.dtype[Any] | None
    shape: tuple[int, ...]
    length: int


def _parse_header(raw: bytes) -> _Header:
    magic, version, kind, code, ndim, test, *rest = _HEADER.unpack(raw)
    dims, length = rest[:MAX_NDIM], rest[MAX_NDIM]
    if magic != MAGIC:
        raise MalformedFrame("the output channel carried something that is not a result frame")
    if version != VERSION:
        raise MalformedFrame(f"frame format version {version} is not supported (want {VERSION})")
    if kind not in _KINDS:
        raise MalformedFrame(f"unknown frame kind {kind}")
    if ndim > MAX_NDIM or any(dims[ndim:]):
        raise MalformedFrame(f"a frame claims {ndim} dimensions; at most {MAX_NDIM} are allowed")
    shape = tuple(dims[:ndim])
    if kind != Kind.ARRAY:
        if code or ndim or length > _LIMITS[kind] or (kind == Kind.END and length != 4):
            raise MalformedFrame(f"a {Kind(kind).name} frame has an invalid header")
        return _Header(Kind(kind), test, None, (), length)
    dtype = _DTYPES.get(code)
    if dtype is None:
        raise MalformedFrame(f"an array frame uses dtype code {code}, which is not allowed")
    if any(d > MAX_DIM for d in shape) or math.prod(max(d, 1) for d in shape) > MAX_ELEMENTS:
        raise MalformedFrame(f"an array frame claims an impossible shape {shape}")
    if math.prod(shape) * dtype.itemsize != length:
        raise MalformedFrame(
            f"an array frame of shape {shape} and dtype {dtype.name} says it "
            f"carries {length} bytes, which does not match"
        )
    return _Header(Kind.ARRAY, test, dtype, shape, length)


def _next(reader: _Reader) -> tuple[_Header, bytes]:
    head = _parse_header(reader.exact(HEADER_SIZE, "a frame header"))
    return head, reader.exact(head.length, f"a {head.kind.name} frame")


def _array(head: _Header, payload: bytes) -> Array:
    assert head.dtype is not None
    if head.dtype.kind == "b" and payload.translate(None, b"\x00\x01"):
        raise MalformedFrame("a bool array frame holds bytes other than 0 and 1")
    try:
        return np.frombuffer(payload, dtype=head.dtype).reshape(head.shape).copy()
    except (ValueError, MemoryError) as exc:
        raise MalformedFrame(f"an array frame could not be rebuilt ({exc})") from None


def _finish(reader: _Reader, payload: bytes, sent: int) -> None:
    (count,) = struct.unpack("<I", payload)
    if count != sent:
        raise IncompleteResults(f"the END frame counts {count} frames but {sent} arrived")
    if not reader.at_eof():
        raise UnexpectedFrame("unexpected bytes followed the END frame")


def _scalar(value: object, where: str) -> Scalar:
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise UnsupportedValue(f"{where} must be an array, an int or a float")
    number: Scalar = value.item() if isinstance(value, np.generic) else value
    if isinstance(number, float) and not math.isfinite(number):
        raise UnsupportedValue(f"{where} must be finite")
    if isinstance(number, int) and not -(2**63) <= number < 2**63:
        raise UnsupportedValue(f"{where} is too large")
    return number


def _text(value: object, where: str, *, empty_ok: bool = False) -> str:
    if isinstance(value, str) and (empty_ok or value) and len(value) <= MAX_JOB_HEADER_BYTES:
        return value
    raise MalformedFrame(f"the job's {where} must be a non-empty string")


def _job_header(payload: bytes) -> tuple[Job, list[tuple[dict[str, Any], str, int]]]:
    try:
        raw = json.loads(payload.decode("utf-8", "surrogatepass"))
    except (ValueError, RecursionError):
        raise MalformedFrame("the job header is not valid JSON") from None
    keys = {"entry", "kind", "framework", "mode", "code", "cases", "limits"}
    if not isinstance(raw, dict) or set(raw) != keys or not isinstance(raw["cases"], list):
        raise MalformedFrame("the job header does not have the expected fields")
    limits = raw["limits"]
    if not isinstance(limits, dict) or set(limits) != {"memory_mb", "cpu_seconds"}:
        raise MalformedFrame("the job's limits are malformed")
    if not all(type(v) is int and 0 <= v < 2**31 for v in limits.values()):
        raise MalformedFrame("the job's limits must be non-negative integers")
    refs: list[tuple[dict[str, Any], str, int]] = []
    cases: list[JobCase] = []
    for item in raw["cases"]:
        index = item.get("index") if isinstance(item, dict) else None
        args = item.get("args") if isinstance(item, dict) else None
        if type(index) is not int or not 0 <= index < FILE_LEVEL_TEST or not isinstance(args, dict):
            raise MalformedFrame("a job case needs an integer index and an args object")
        if index in {c.index for c in cases}:
            raise MalformedFrame(f"the job lists case {index} twice")
        values: dict[str, Array | Scalar] = {}
        for name, ref in args.items():
            if not name.isidentifier() or not isinstance(ref, dict) or len(ref) != 1:
                raise MalformedFrame(f"job argument {name!r} is malformed")
            if type(ref.get("array")) is int and ref["array"] >= 0:
                values[name] = 0  # placeholder keeps the argument order; replaced by the array
                refs.append((values, name, ref["array"]))
            elif "scalar" in ref:
                values[name] = _scalar(ref["scalar"], f"argument {name!r}")
            else:
                raise MalformedFrame(f"job argument {name!r} is neither a scalar nor an array")
        cases.append(JobCase(index, values))
    entry, kind, framework, mode = (
        _text(raw[k], k) for k in ("entry", "kind", "framework", "mode")
    )
    code = None if raw["code"] is None else _text(raw["code"], "code", empty_ok=True)
    job = Job(entry, kind, framework, mode, cases, code, limits["memory_mb"], limits["cpu_seconds"])
    return job, refs


def read_job(source: ByteSource | int, max_bytes: int = DEFAULT_JOB_BYTES) -> Job:
    """Decode a job inside the sandbox; only ProtocolError escapes."""
    reader = _Reader(source, max_bytes)
    head, payload = _next(reader)
    if head.kind != Kind.JOB:
        raise UnexpectedFrame("a job must start with a JOB frame")
    job, refs = _job_header(payload)
    arrays: list[Array] = []
    while True:
        head, payload = _next(reader)
        if head.kind == Kind.END:
            _finish(reader, payload, len(arrays))
            break
        if head.kind != Kind.ARRAY or head.test != len(arrays):
            raise UnexpectedFrame(f"expected array {len(arrays)} of the job, got another frame")
        arrays.append(_array(head, payload))
    if {index for _, _, index in refs} != set(range(len(arrays))):
        raise IncompleteResults("the job's array references do not match the arrays sent")
    for values, name, index in refs:
        values[name] = arrays[index]
    return job
