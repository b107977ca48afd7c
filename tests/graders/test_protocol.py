"""The result channel: round trips, every refusal rule, and a fuzzed decoder that only ever raises
ProtocolError."""

from __future__ import annotations

import ast
import contextlib
import io
import os
import random
import struct
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from graders import protocol as p
from graders import results as r
from graders.jobs import decode_job, encode_job

ALLOWED = ["bool", "int8", "int16", "int32", "int64", "uint8", "float16", "float32", "float64"]


def _header(
    *,
    magic: bytes = p.MAGIC,
    version: int = p.VERSION,
    kind: int = p.Kind.ARRAY,
    code: int = 8,
    test: int = 0,
    dims: tuple[int, ...] = (2,),
    ndim: int | None = None,
    length: int = 8,
) -> bytes:
    slots = list(dims) + [0] * (8 - len(dims))
    n = len(dims) if ndim is None else ndim
    return struct.pack("<4sBBBBI8QQ", magic, version, kind, code, n, test, *slots, length)


def _stream() -> bytes:
    """A valid three-test result stream: two arrays and one error."""
    return (
        p.encode_array(0, np.arange(6, dtype=np.float32).reshape(2, 3))
        + p.encode_error(1, "ValueError", "positions must be integers ✓")
        + p.encode_array(2, np.array([1, 2, 3], dtype=np.int64))
        + p.encode_end(3)
    )


def _decode(data: bytes, tests: list[int] | None = None, budget: int = 10**6) -> Any:
    return r.decode_results(data, [0, 1, 2] if tests is None else tests, budget)


# ---------------------------------------------------------------- round trips


@pytest.mark.parametrize("dtype", ALLOWED)
def test_every_allowed_dtype_round_trips(dtype: str) -> None:
    array = (np.arange(24) % 7).astype(dtype).reshape(2, 3, 4)
    got = _decode(p.encode_array(5, array) + p.encode_end(1), [5])[5]
    assert type(got) is np.ndarray
    assert got.dtype == np.dtype(dtype) and got.shape == (2, 3, 4)
    assert np.array_equal(got, array)
    assert got.flags.writeable and got.flags.owndata


@pytest.mark.parametrize("shape", [(), (0,), (3, 0, 2), (1,) * 8, (2, 1, 2, 1, 2, 1, 2, 1)])
def test_scalars_empty_and_eight_axis_arrays_round_trip(shape: tuple[int, ...]) -> None:
    array = np.ones(shape, dtype=np.float64)
    got = _decode(p.encode_array(0, array) + p.encode_end(1), [0])[0]
    assert got.shape == shape and got.dtype == np.float64
    assert got.flags.writeable


def test_big_endian_and_strided_inputs_are_sent_little_endian_and_contiguous() -> None:
    array = np.arange(12, dtype=">f8").reshape(3, 4)[:, ::2]
    frame = p.encode_array(0, array)
    assert frame[p.HEADER_SIZE :] == np.ascontiguousarray(array, dtype="<f8").tobytes()
    assert np.array_equal(_decode(frame + p.encode_end(1), [0])[0], array)


def test_ndarray_subclass_is_sent_as_plain_array() -> None:
    class Sneaky(np.ndarray):
        def __eq__(self, other: object) -> Any:
            return True

    array = np.arange(4.0).view(Sneaky)
    got = _decode(p.encode_array(0, array) + p.encode_end(1), [0])[0]
    assert type(got) is np.ndarray


def test_mixed_stream_decodes_arrays_and_errors() -> None:
    results = _decode(_stream())
    assert np.array_equal(results[0], np.arange(6, dtype=np.float32).reshape(2, 3))
    assert results[1] == p.RaisedError("ValueError", "positions must be integers ✓")
    assert results[2].dtype == np.int64


def test_header_layout_is_fixed_and_little_endian() -> None:
    frame = p.encode_array(7, np.zeros((2, 3), dtype=np.int16))
    assert p.HEADER_SIZE == 84 and frame[:4] == b"PEGF"
    _magic, version, kind, code, ndim, test, *rest = struct.unpack("<4sBBBBI8QQ", frame[:84])
    assert (version, kind, code, ndim, test) == (1, 1, 3, 2, 7)
    assert rest[:8] == [2, 3, 0, 0, 0, 0, 0, 0] and rest[8] == 12


def test_reads_from_a_pipe_fd_written_by_another_thread() -> None:
    data = _stream()
    read_fd, write_fd = os.pipe()

    def writer() -> None:
        for i in range(0, len(data), 7):  # dribble the bytes in small pieces
            os.write(write_fd, data[i : i + 7])
        os.close(write_fd)

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        results = r.read_results(read_fd, [0, 1, 2], 10**6)
    finally:
        thread.join()
        os.close(read_fd)
    assert set(results) == {0, 1, 2}


def test_reads_from_a_binary_file(tmp_path: Path) -> None:
    path = tmp_path / "frames.bin"
    path.write_bytes(_stream())
    with path.open("rb") as stream:
        assert set(r.read_results(stream, [0, 1, 2], 10**6)) == {0, 1, 2}


# ---------------------------------------------------------------- encoder refusals


@pytest.mark.parametrize(
    "array",
    [
        np.zeros(2, dtype=np.complex64),
        np.zeros(2, dtype=np.uint16),
        np.zeros(2, dtype=object),
        np.zeros(2, dtype="U3"),
        np.zeros(2, dtype=[("a", "<f4")]),
        np.zeros((1,) * 9),
    ],
    ids=["complex", "uint16", "object", "str", "structured", "ndim9"],
)
def test_encoder_refuses_what_the_decoder_would_refuse(array: np.ndarray) -> None:
    with pytest.raises(p.UnsupportedValue):
        p.encode_array(0, array)


def test_encoder_refuses_bfloat16() -> None:
    ml_dtypes = pytest.importorskip("ml_dtypes")
    with pytest.raises(p.UnsupportedValue, match="convert to float32"):
        p.encode_array(0, np.zeros(2, dtype=ml_dtypes.bfloat16))


def test_error_frames_are_capped_at_a_character_boundary() -> None:
    frame = p.encode_error(0, "E" * 1000, "é" * 10_000)
    got = _decode(frame + p.encode_end(1), [0])[0]
    assert len(got.type_name.encode()) <= p.MAX_TYPE_NAME_BYTES
    assert len(got.message.encode()) <= p.MAX_MESSAGE_BYTES
    assert set(got.message) == {"é"} and "\ufffd" not in got.message


def test_error_frames_survive_surrogates_and_control_characters() -> None:
    frame = p.encode_error(0, "Boom\x00", "bad \udcff byte\x1b[2J and\nnewline\ttab")
    got = _decode(frame + p.encode_end(1), [0])[0]
    assert "\x00" not in got.type_name and "\x1b" not in got.message
    assert "\\udcff" in got.message and "\n" in got.message and "\t" in got.message


def test_invalid_utf8_in_an_error_frame_is_replaced() -> None:
    payload = struct.pack("<H", 3) + b"Bad" + b"\xff\xfe oops"
    frame = _header(kind=p.Kind.ERROR, code=0, dims=(), length=len(payload)) + payload
    got = _decode(frame + p.encode_end(1), [0])[0]
    assert got.type_name == "Bad" and got.message.endswith(" oops")


# ---------------------------------------------------------------- decoder refusals


def _raises(kind: type[p.ProtocolError], data: bytes, match: str | None = None, **kw: Any) -> None:
    with pytest.raises(kind, match=match):
        _decode(data, **kw)


def test_empty_stream_is_missing_end() -> None:
    _raises(p.TruncatedStream, b"", "before its END frame")


def test_missing_end_keeps_partial_results() -> None:
    data = p.encode_array(0, np.zeros(2)) + p.encode_array(1, np.ones(2))
    with pytest.raises(p.TruncatedStream, match="before its END frame") as info:
        _decode(data)
    assert set(info.value.partial) == {0, 1}


def test_every_truncation_is_a_truncated_stream() -> None:
    data = _stream()
    for cut in range(len(data)):
        with pytest.raises(p.TruncatedStream):
            _decode(data[:cut])


@pytest.mark.parametrize(
    ("header", "match"),
    [
        (_header(magic=b"PK\x03\x04"), "not a result frame"),
        (_header(version=2), "version 2"),
        (_header(kind=9), "unknown frame kind"),
        (_header(code=0), "dtype code 0"),
        (_header(code=10), "dtype code 10"),
        (_header(ndim=9, dims=(1,) * 8, length=8), "9 dimensions"),
        (_header(dims=(2,), ndim=1) [:24] + struct.pack("<Q", 5) + b"\0" * 52, "dimensions"),
        (_header(dims=(3,), length=8), "does not match"),
        (_header(dims=(2**31,), length=2**33), "impossible shape"),
        (_header(dims=(0, 2**31 - 1, 2**31 - 1), length=0), "impossible shape"),
        (_header(kind=p.Kind.END, code=0, dims=(), length=5), "END frame has an invalid"),
        (_header(kind=p.Kind.END, code=1, dims=(), length=4), "END frame has an invalid"),
        (_header(kind=p.Kind.ERROR, code=0, dims=(2,), length=4), "ERROR frame has an invalid"),
        (_header(kind=p.Kind.ERROR, code=0, dims=(), length=10**6), "ERROR frame has an invalid"),
    ],
    ids=[
        "magic", "version", "kind", "dtype0", "dtype10", "ndim9", "unused-dim", "size-lie",
        "huge-dim", "zero-size-huge", "end-length", "end-dtype", "error-shape", "error-length",
    ],
)  # fmt: skip
def test_bad_headers_are_refused_before_any_payload_is_read(header: bytes, match: str) -> None:
    _raises(p.MalformedFrame, header, match)  # no payload follows: refusal comes first


def test_bool_payloads_must_hold_only_zero_and_one() -> None:
    frame = _header(code=1, dims=(3,), length=3) + b"\x01\x00\x02"
    _raises(p.MalformedFrame, frame + p.encode_end(1), "other than 0 and 1", tests=[0])


def test_out_of_range_indices_and_counts_are_refused_by_the_encoder() -> None:
    calls: list[Callable[[], bytes]] = [
        lambda: p.encode_array(-1, np.zeros(1)),
        lambda: p.encode_array(2**32, np.zeros(1)),
        lambda: p.encode_error(-1, "E", "m"),
        lambda: p.encode_end(-1),
        lambda: p.encode_end(2**32),
    ]
    for call in calls:
        with pytest.raises(p.UnsupportedValue):
            call()


def test_inconsistent_error_payloads_are_malformed() -> None:
    for payload in (b"\x01", struct.pack("<H", 50) + b"short", struct.pack("<H", 300) + b"x" * 300):
        frame = _header(kind=p.Kind.ERROR, code=0, dims=(), length=len(payload)) + payload
        _raises(p.MalformedFrame, frame + p.encode_end(1), "error frame", tests=[0])


def test_huge_claimed_payload_is_over_budget_not_allocated() -> None:
    class Source:
        def __init__(self, data: bytes) -> None:
            self.data, self.requested = io.BytesIO(data), 0

        def read(self, size: int, /) -> bytes:
            self.requested = max(self.requested, size)
            return self.data.read(size)

    source = Source(_header(dims=(2**30, 8), length=2**35))
    with pytest.raises(p.OverBudget, match="too large"):
        r.read_results(source, [0], 64 * 2**20)
    assert source.requested == p.HEADER_SIZE


def test_total_budget_counts_every_frame() -> None:
    data = _stream()
    assert _decode(data, budget=len(data) + 1)
    _raises(p.OverBudget, data, budget=len(data) - 1)
    _raises(p.OverBudget, data, budget=10)


def test_unrequested_duplicate_and_extra_frames_are_refused() -> None:
    one = p.encode_array(0, np.zeros(1))
    _raises(p.UnexpectedFrame, one + p.encode_end(1), "test 0, which was not", tests=[1])
    _raises(p.UnexpectedFrame, one + one + p.encode_end(2), "two results", tests=[0, 1])
    _raises(p.UnexpectedFrame, one + one + p.encode_end(2), "more result frames", tests=[0])


def test_end_count_and_missing_results_are_checked() -> None:
    one = p.encode_array(0, np.zeros(1))
    _raises(p.IncompleteResults, one + p.encode_end(2), "counts 2 frames but 1", tests=[0])
    _raises(p.IncompleteResults, one + p.encode_end(1), r"without results for tests \[1, 2\]")


def test_trailing_bytes_after_end_are_refused() -> None:
    _raises(p.UnexpectedFrame, _stream() + b"\0", "followed the END")
    _raises(p.UnexpectedFrame, _stream() + p.encode_end(0), "followed the END")


def test_job_frames_do_not_belong_in_results() -> None:
    job = encode_job(p.Job("f", "function", "numpy", "run"))
    _raises(p.UnexpectedFrame, job, "JOB frame")


def test_file_level_error_stands_in_for_every_test() -> None:
    data = p.encode_error(p.FILE_LEVEL_TEST, "SyntaxError", "invalid syntax") + p.encode_end(1)
    results = _decode(data)
    assert results == {p.FILE_LEVEL_TEST: p.RaisedError("SyntaxError", "invalid syntax")}
    bad = p.encode_array(p.FILE_LEVEL_TEST, np.zeros(1)) + p.encode_end(1)
    _raises(p.UnexpectedFrame, bad, "file-level")


def test_reader_failures_become_protocol_errors() -> None:
    class Broken:
        def read(self, size: int, /) -> bytes:
            raise OSError("EIO")

    class Texty:
        def read(self, size: int, /) -> Any:
            return "text"

    for source in (Broken(), Texty()):
        with pytest.raises(p.ProtocolError):
            r.read_results(source, [0], 100)
    with pytest.raises(p.ProtocolError):
        r.read_results(987654, [0], 100)  # a closed / unknown fd


# ---------------------------------------------------------------- fuzzing


def _only_protocol_errors(data: bytes, tests: list[int] | None = None) -> None:
    try:
        results = _decode(data, tests)
    except p.ProtocolError as exc:
        assert str(exc)
        return
    for value in results.values():
        assert type(value) is np.ndarray or isinstance(value, p.RaisedError)


def test_fuzz_random_bytes() -> None:
    rng = random.Random(1)
    for _ in range(20_000):
        _only_protocol_errors(rng.randbytes(rng.randrange(0, 400)))


def test_fuzz_random_headers_with_valid_magic() -> None:
    rng = random.Random(2)
    for _ in range(20_000):
        head = p.MAGIC + bytes([1, rng.randrange(6), rng.randrange(12), rng.randrange(10)])
        head += struct.pack("<I", rng.choice([0, 1, 2, 3, 2**32 - 1, rng.randrange(2**32)]))
        dims = [rng.choice([0, 1, 2, 3, 2**31, 2**63, rng.randrange(2**64)]) for _ in range(8)]
        head += struct.pack("<8Q", *dims) + struct.pack("<Q", rng.choice([0, 4, 8, 2**64 - 1]))
        _only_protocol_errors(head + rng.randbytes(rng.randrange(0, 64)))


def test_fuzz_every_single_bit_flip() -> None:
    data = _stream()
    for bit in range(len(data) * 8):
        flipped = bytearray(data)
        flipped[bit // 8] ^= 1 << (bit % 8)
        _only_protocol_errors(bytes(flipped))


def test_fuzz_random_corruptions_and_splices() -> None:
    rng = random.Random(3)
    data = _stream()
    for _ in range(10_000):
        mutated = bytearray(data)
        for _ in range(rng.randrange(1, 6)):
            mutated[rng.randrange(len(mutated))] = rng.randrange(256)
        start, stop = sorted(rng.randrange(len(data) + 1) for _ in range(2))
        _only_protocol_errors(bytes(mutated))
        _only_protocol_errors(data[:start] + data[stop:])
        _only_protocol_errors(data[start:stop])


def test_fuzz_job_decoder() -> None:
    rng = random.Random(4)
    data = encode_job(_job())
    for _ in range(5000):
        mutated = bytearray(data)
        for _ in range(rng.randrange(1, 4)):
            mutated[rng.randrange(len(mutated))] = rng.randrange(256)
        for candidate in (bytes(mutated), data[: rng.randrange(len(data))], rng.randbytes(200)):
            with contextlib.suppress(p.ProtocolError):
                decode_job(candidate)


def _random_json(rng: random.Random, depth: int = 0) -> Any:
    atoms: list[Any] = [None, True, 0, -1, 2**70, 1.5, float("inf"), "", "x", "a b", {}, []]
    if depth > 3 or rng.random() < 0.4:
        return rng.choice(atoms)
    if rng.random() < 0.5:
        return [_random_json(rng, depth + 1) for _ in range(rng.randrange(3))]
    keys = ["index", "args", "array", "scalar", "entry", "cases", "x", "T"]
    return {rng.choice(keys): _random_json(rng, depth + 1) for _ in range(rng.randrange(3))}


def test_fuzz_job_headers_with_valid_json() -> None:
    rng = random.Random(5)
    for _ in range(3000):
        header: dict[str, Any] = {**GOOD, "cases": _random_json(rng)}
        field = rng.choice([*GOOD, "cases"])
        header[field] = _random_json(rng) if rng.random() < 0.3 else header[field]
        frames = [p.encode_array(i, np.zeros(i + 1)) for i in range(rng.randrange(3))]
        try:
            job = decode_job(_raw_job(header, *frames))
        except p.ProtocolError:
            continue
        assert isinstance(job, p.Job) and all(isinstance(c, p.JobCase) for c in job.cases)


# ---------------------------------------------------------------- jobs


def _job() -> p.Job:
    positions = np.array([[3, 4, 5, 6], [0, 1, 2, 3]], dtype=np.float32)
    table = np.linspace(-1, 1, 32).reshape(8, 4)
    return p.Job(
        entry_name="position_embedding_gather",
        entry_kind="function",
        framework="jax",
        mode="submit",
        cases=[
            p.JobCase(0, {"positions": positions, "embedding_table": table}),
            p.JobCase(3, {"seed": 0, "T": 4.0, "d_model": np.int64(8), "x": table[:2]}),  # type: ignore[dict-item]
        ],
        code="def position_embedding_gather(positions, embedding_table):\n    return 1\n",
    )


def test_job_round_trip_keeps_types_order_and_values() -> None:
    job = decode_job(encode_job(_job()))
    assert (job.entry_name, job.entry_kind, job.framework, job.mode) == (
        "position_embedding_gather", "function", "jax", "submit",
    )  # fmt: skip
    assert job.code is not None and job.code.startswith("def position_embedding_gather")
    first, second = job.cases
    assert first.index == 0 and list(first.args) == ["positions", "embedding_table"]
    assert first.args["positions"].dtype == np.float32  # type: ignore[union-attr]
    assert np.array_equal(first.args["embedding_table"], _job().cases[0].args["embedding_table"])
    assert second.index == 3 and list(second.args) == ["seed", "T", "d_model", "x"]
    assert type(second.args["seed"]) is int and type(second.args["T"]) is float
    assert type(second.args["d_model"]) is int
    assert type(second.args["x"]) is np.ndarray


def test_job_reads_from_a_stream_and_without_code() -> None:
    job = p.Job("LearnedPositionalEmbedding", "class", "torch", "run", [p.JobCase(0, {})])
    assert p.read_job(io.BytesIO(encode_job(job))) == job
    empty = p.Job("f", "function", "numpy", "run", code="")
    assert decode_job(encode_job(empty)) == empty


@pytest.mark.parametrize("value", [True, float("nan"), float("inf"), 2**64, "3", None])
def test_job_refuses_bad_scalars(value: Any) -> None:
    job = p.Job("f", "function", "numpy", "run", [p.JobCase(0, {"x": value})])
    with pytest.raises(p.UnsupportedValue):
        encode_job(job)


def _raw_job(header: Any, *frames: bytes) -> bytes:
    import json

    text = json.dumps(header).encode()
    head = _header(kind=p.Kind.JOB, code=0, dims=(), length=len(text))
    return head + text + b"".join(frames) + p.encode_end(len(frames))


GOOD = {
    "entry": "f",
    "kind": "function",
    "framework": "numpy",
    "mode": "run",
    "code": None,
    "limits": {"memory_mb": 0, "cpu_seconds": 0},
}


@pytest.mark.parametrize(
    ("header", "frames", "match"),
    [
        ([1, 2], (), "expected fields"),
        ({**GOOD}, (), "expected fields"),
        ({**GOOD, "cases": [], "extra": 1}, (), "expected fields"),
        ({**GOOD, "entry": "", "cases": []}, (), "entry"),
        ({**GOOD, "cases": [{"index": -1, "args": {}}]}, (), "integer index"),
        ({**GOOD, "cases": [{"index": True, "args": {}}]}, (), "integer index"),
        ({**GOOD, "cases": [{"index": 0, "args": {}}] * 2}, (), "twice"),
        ({**GOOD, "cases": [{"index": 0, "args": {"a b": {"scalar": 1}}}]}, (), "malformed"),
        ({**GOOD, "cases": [{"index": 0, "args": {"x": {"what": 1}}}]}, (), "neither"),
        ({**GOOD, "cases": [{"index": 0, "args": {"x": {"array": 1}}}]}, ("a0",), "references"),
        ({**GOOD, "cases": []}, ("a0",), "references"),
        ({**GOOD, "cases": [{"index": 0, "args": {"x": {"array": 0}}}]}, ("a1",), "array 0"),
        ({**GOOD, "cases": [], "limits": {"memory_mb": 1}}, (), "limits are malformed"),
        ({**GOOD, "cases": [], "limits": {"memory_mb": -1, "cpu_seconds": 0}}, (), "non-negative"),
        ({**GOOD, "cases": [], "limits": {"memory_mb": 1.5, "cpu_seconds": 0}}, (), "non-negative"),
    ],
)
def test_job_decoder_refuses_malformed_jobs(
    header: Any, frames: tuple[str, ...], match: str
) -> None:
    arrays = [p.encode_array(int(f[1]), np.zeros(2)) for f in frames]
    with pytest.raises(p.ProtocolError, match=match):
        decode_job(_raw_job(header, *arrays))


def test_job_decoder_refuses_non_json_and_non_job_starts() -> None:
    text = b"{not json"
    with pytest.raises(p.MalformedFrame, match="not valid JSON"):
        decode_job(_header(kind=p.Kind.JOB, code=0, dims=(), length=len(text)) + text)
    with pytest.raises(p.UnexpectedFrame, match="JOB frame"):
        decode_job(p.encode_array(0, np.zeros(1)) + p.encode_end(1))
    with pytest.raises(p.MalformedFrame, match="not valid JSON"):
        deep = b"[" * 100_000 + b"]" * 100_000
        decode_job(_header(kind=p.Kind.JOB, code=0, dims=(), length=len(deep)) + deep)


def test_job_trailing_bytes_and_budget() -> None:
    data = encode_job(_job())
    with pytest.raises(p.UnexpectedFrame, match="followed the END"):
        decode_job(data + b"x")
    with pytest.raises(p.OverBudget):
        decode_job(data, max_bytes=len(data) - 1)


def test_the_module_never_uses_pickle() -> None:
    tree = ast.parse(Path(p.__file__).read_text(encoding="utf-8"))
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert imported == {
        "__future__",
        "json",
        "math",
        "os",
        "struct",
        "dataclasses",
        "enum",
        "typing",
        "numpy",
    }
    names = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    assert not {"load", "fromfile"} & names  # np.load can unpickle object arrays
    keywords = {k.arg for n in ast.walk(tree) if isinstance(n, ast.Call) for k in n.keywords}
    assert "allow_pickle" not in keywords


def test_a_jobs_limits_survive_the_round_trip() -> None:
    job = p.Job("f", "function", "numpy", "submit", code="", memory_mb=1536, cpu_seconds=11)
    decoded = decode_job(encode_job(job))
    assert (decoded.memory_mb, decoded.cpu_seconds) == (1536, 11)
