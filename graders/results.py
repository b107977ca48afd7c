"""Reading a result stream, on the grader's side only (the sandbox writes; see protocol.py).

Kept apart from protocol.py, which is also bound into the sandbox, so that file holds only what
both sides need.
"""

from __future__ import annotations

import io
import struct

from graders.protocol import (
    FILE_LEVEL_TEST,
    HEADER_SIZE,
    MAX_MESSAGE_BYTES,
    MAX_TYPE_NAME_BYTES,
    ByteSource,
    IncompleteResults,
    Kind,
    MalformedFrame,
    ProtocolError,
    RaisedError,
    Result,
    TruncatedStream,
    UnexpectedFrame,
    _array,
    _finish,
    _parse_header,
    _Reader,
)


def _clean(text: str) -> str:
    return "".join(c if c.isprintable() or c in "\n\t" else "\ufffd" for c in text)


def _raised(payload: bytes) -> RaisedError:
    if len(payload) < 2:
        raise MalformedFrame("an error frame is too short")
    (size,) = struct.unpack_from("<H", payload)
    if size > MAX_TYPE_NAME_BYTES or not 0 <= len(payload) - 2 - size <= MAX_MESSAGE_BYTES:
        raise MalformedFrame("an error frame has inconsistent lengths")
    name = payload[2 : 2 + size].decode("utf-8", "replace")
    return RaisedError(_clean(name), _clean(payload[2 + size :].decode("utf-8", "replace")))


def read_results(
    source: ByteSource | int, expected_tests: list[int], max_bytes: int
) -> dict[int, Result]:
    """Decode a result stream; only ProtocolError escapes, with what was decoded in `.partial`.

    An ERROR frame for FILE_LEVEL_TEST (the submission could not be loaded) may stand in for
    every test. Reads until EOF after END, so give it a buffer or a pipe whose writer has exited.
    """
    wanted = set(expected_tests)
    reader = _Reader(source, max_bytes)
    results: dict[int, Result] = {}
    try:
        while True:
            raw = reader.exact(HEADER_SIZE, "a frame header", eof_ok=True)
            if not raw:
                raise TruncatedStream(
                    "the output ended before its END frame: the program "
                    "stopped before reporting every result"
                )
            head = _parse_header(raw)
            if head.kind == Kind.END:
                _finish(reader, reader.exact(head.length, "the END frame"), len(results))
                break
            if head.kind == Kind.JOB:
                raise UnexpectedFrame("a JOB frame appeared among the results")
            answered = len(results.keys() - {FILE_LEVEL_TEST})
            if head.test != FILE_LEVEL_TEST and answered == len(wanted):
                raise UnexpectedFrame("more result frames arrived than tests were requested")
            if head.test == FILE_LEVEL_TEST and head.kind == Kind.ARRAY:
                raise UnexpectedFrame("an array frame used the file-level test index")
            if head.test not in wanted and head.test != FILE_LEVEL_TEST:
                raise UnexpectedFrame(
                    f"a result arrived for test {head.test}, which was not requested"
                )
            if head.test in results:
                raise UnexpectedFrame(f"two results arrived for test {head.test}")
            payload = reader.exact(head.length, f"the result of test {head.test}")
            is_array = head.kind == Kind.ARRAY
            results[head.test] = _array(head, payload) if is_array else _raised(payload)
        missing = sorted(wanted - results.keys())
        if missing and FILE_LEVEL_TEST not in results:
            raise IncompleteResults(f"the output ended cleanly without results for tests {missing}")
    except ProtocolError as exc:
        exc.partial = dict(results)
        raise
    return results


def decode_results(data: bytes, expected_tests: list[int], max_bytes: int) -> dict[int, Result]:
    """Same as read_results, for bytes already collected from the pipe."""
    return read_results(io.BytesIO(data), expected_tests, max_bytes)
