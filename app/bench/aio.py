"""A small asyncio HTTP/1.1 client: hundreds of simulated students from one light process.

Why not threads or a client library: a thread per student costs more CPU than the server's own
work on a 2-core machine, and the runtime has no async HTTP client. This reads exactly what our
server sends (Content-Length or chunked bodies, keep-alive) and nothing more.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit


class HttpError(Exception):
    """The connection failed or the answer could not be read (a closed connection, a time-out)."""


@dataclass
class Answer:
    """One response: status, headers (lower-case names) and body."""

    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        """The body as JSON."""
        return json.loads(self.body)


@dataclass
class Client:
    """One keep-alive connection, as one browser tab of one student."""

    base: str
    headers: dict[str, str] = field(default_factory=dict)
    timeout: float = 60.0
    _reader: asyncio.StreamReader | None = None
    _writer: asyncio.StreamWriter | None = None

    async def _connect(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        if self._reader is None or self._writer is None or self._writer.is_closing():
            parts = urlsplit(self.base)
            self._reader, self._writer = await asyncio.open_connection(
                parts.hostname, parts.port or 80, limit=2**20
            )
        return self._reader, self._writer

    async def close(self) -> None:
        """Close the connection (ignoring one the server closed first)."""
        writer, self._reader, self._writer = self._writer, None, None
        if writer is not None:
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()

    async def request(self, method: str, path: str, body: Any = None) -> Answer:
        """Send one request and read the whole answer; HttpError when that fails."""
        try:
            return await asyncio.wait_for(self._exchange(method, path, body), self.timeout)
        except (OSError, asyncio.IncompleteReadError, TimeoutError, ValueError) as exc:
            await self.close()
            raise HttpError(f"{method} {path}: {type(exc).__name__}: {exc}") from exc

    async def _exchange(self, method: str, path: str, body: Any) -> Answer:
        reader, writer = await self._connect()
        writer.write(self._head(method, path, body))
        await writer.drain()
        status, headers = await _read_head(reader)
        data = b"".join([chunk async for chunk in _body(reader, headers)])
        if headers.get("connection", "").lower() == "close":
            await self.close()
        return Answer(status, headers, data)

    async def stream(self, path: str) -> AsyncIterator[bytes]:
        """GET a streamed answer (SSE) and yield its chunks as they come; closes afterwards."""
        try:
            reader, writer = await self._connect()
            writer.write(self._head("GET", path, None))
            await writer.drain()
            status, headers = await asyncio.wait_for(_read_head(reader), self.timeout)
            if status != 200:
                raise HttpError(f"GET {path}: status {status}")
            async for chunk in _body(reader, headers):
                yield chunk
        except (OSError, asyncio.IncompleteReadError, ValueError) as exc:
            raise HttpError(f"GET {path}: {type(exc).__name__}: {exc}") from exc
        finally:
            await self.close()

    def _head(self, method: str, path: str, body: Any) -> bytes:
        data = b"" if body is None else json.dumps(body).encode()
        host = urlsplit(self.base).netloc
        lines = [f"{method} {path} HTTP/1.1", f"Host: {host}", "Connection: keep-alive"]
        lines += [f"{key}: {value}" for key, value in self.headers.items()]
        if body is not None:
            lines += ["Content-Type: application/json", f"Content-Length: {len(data)}"]
        return ("\r\n".join(lines) + "\r\n\r\n").encode() + data


async def _read_head(reader: asyncio.StreamReader) -> tuple[int, dict[str, str]]:
    raw = await reader.readuntil(b"\r\n\r\n")
    lines = raw.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ", 2)[1])
    headers: dict[str, str] = {}
    for line in lines[1:]:
        if ":" in line:
            key, value = line.split(":", 1)
            headers[key.strip().lower()] = value.strip()
    return status, headers


async def _body(reader: asyncio.StreamReader, headers: dict[str, str]) -> AsyncIterator[bytes]:
    if "content-length" in headers:
        yield await reader.readexactly(int(headers["content-length"]))
        return
    if headers.get("transfer-encoding", "").lower() != "chunked":
        return  # no body (e.g. 304)
    while True:
        size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
        if size == 0:
            await reader.readuntil(b"\r\n")
            return
        chunk = await reader.readexactly(size)
        await reader.readexactly(2)
        yield chunk
