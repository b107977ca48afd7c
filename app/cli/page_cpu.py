"""The web app's own CPU per page, in one process, with no server, grader or client around it.

Why: on a shared machine a page's wall-clock time says more about the neighbours than about the
code, and the `pages` scenario's server CPU includes uvicorn and the grader pool. Here N seeded
students load the bench's five pages through the ASGI app directly (a scope in, the bytes out),
and the process's CPU time over the run, divided by the pages, is the app's cost of a page:
routing, the sign-in check, the thread hand-off, SQL, templates. `--profile` adds cProfile.

    python -m app.cli.page_cpu --students 300 [--profile out.prof] [--pages-out DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import hashlib
import json
import os
import tempfile
import time
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any

Message = MutableMapping[str, Any]
Asgi = Callable[
    [
        MutableMapping[str, Any],
        Callable[[], Awaitable[Message]],
        Callable[[Message], Awaitable[None]],
    ],
    Awaitable[None],
]


async def get(app: Asgi, path: str, cookie: str | None) -> tuple[int, bytes]:
    """One GET through the ASGI app: its status and body."""
    raw_path, _, query = path.partition("?")
    headers = [(b"host", b"testserver"), (b"accept", b"text/html")]
    if cookie:
        headers.append((b"cookie", f"session={cookie}".encode()))
    scope: dict[str, Any] = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": raw_path,
        "raw_path": raw_path.encode(),
        "query_string": query.encode(),
        "root_path": "",
        "headers": headers,
        "client": ("127.0.0.1", 5000),
        "server": ("testserver", 80),
        "state": {},
    }
    status = 0
    body: list[bytes] = []

    async def receive() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Message) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
        elif message["type"] == "http.response.body":
            body.append(message.get("body", b""))

    await app(scope, receive, send)
    return status, b"".join(body)


PATHS = ("/", "/lessons/{0}", "/lessons/{1}", "/exercises/{2}", "/api/exercises")


async def _paths(app: Asgi) -> list[str]:
    lessons = json.loads((await get(app, "/api/lessons", None))[1])
    exercises = json.loads((await get(app, "/api/exercises", None))[1])
    exercise = next(ex for ex in exercises if ex["kind"] != "experiment")
    return ["/", lessons[0]["url"], lessons[1]["url"], exercise["url"], "/api/exercises"]


async def _students(app: Asgi, cookies: list[str], paths: list[str], at_once: int) -> list[str]:
    """Each student loads the five pages in turn, AT_ONCE students at a time; the errors."""
    errors: list[str] = []
    gate = asyncio.Semaphore(at_once)

    async def one(cookie: str) -> None:
        async with gate:
            for path in paths:
                status, body = await get(app, path, cookie)
                if status != 200:
                    errors.append(f"{path}: {status} {body[:120]!r}")

    await asyncio.gather(*(one(c) for c in cookies))
    return errors


def measure(
    students: int, at_once: int, profile: Path | None, pages_out: Path | None
) -> dict[str, Any]:
    """Set up a data directory, seed, warm up, then time STUDENTS students' five pages."""
    folder = Path(tempfile.mkdtemp(prefix="page-cpu-"))
    os.environ["APP_DATA_DIR"] = str(folder)
    os.environ.pop("DATABASE_URL", None)
    os.environ["POOL_WARM_ON_START"] = "false"
    os.environ["POOL_SIZES"] = '{"numpy": 0, "torch": 0, "jax": 0}'
    from app.bench.pages import seed_students
    from app.main import create_app
    from app.migrate import upgrade_head
    from app.wiring import wire

    wire()
    upgrade_head()
    env = {"APP_DATA_DIR": str(folder)}
    warm = [s.cookie for s in seed_students(env, 50, "warm")]
    timed = [s.cookie for s in seed_students(env, students, "timed")]
    again = timed[: min(50, students)]
    fresh = [s.cookie for s in seed_students(env, len(again), "fresh")]
    app = create_app()

    async def run() -> dict[str, Any]:
        async with app.router.lifespan_context(app):
            await asyncio.sleep(0.5)  # templates compile in the background at start
            paths = await _paths(app)
            errors = await _students(app, warm, paths, at_once)
            if pages_out is not None:
                _write_pages(pages_out, await _snapshot(app, paths, warm[:3]))
            profiler = _Profiler(profile) if profile else None
            wall, cpu = time.perf_counter(), time.process_time()
            if profiler:
                profiler.start()
            errors += await _students(app, timed, paths, at_once)
            if profiler:
                profiler.stop()
            cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
            cpu_again = time.process_time()
            errors += await _students(app, again, paths, at_once)
            cpu_again = time.process_time() - cpu_again
            pages = len(timed) * len(paths)
            first_by_page: dict[str, float] = {}
            by_page: dict[str, float] = {}
            for path in paths:  # new students' first visits, then returning ones, a path at a time
                for group, into in ((fresh, first_by_page), (again, by_page)):
                    used = time.process_time()
                    errors += await _students(app, group, [path], at_once)
                    into[path] = round((time.process_time() - used) / len(group) * 1000, 3)
            return {
                "students": students,
                "pages": pages,
                "errors": len(errors),
                "first_errors": errors[:3],
                "cpu_ms_per_page": round(cpu / pages * 1000, 3),
                "cpu_ms_per_page_again": round(cpu_again / (len(again) * len(paths)) * 1000, 3),
                "wall_s": round(wall, 2),
                "cpu_ms_first_by_page": first_by_page,
                "cpu_ms_again_by_page": by_page,
            }

    return asyncio.run(run())


class _Profiler:
    """cProfile (this thread only), or yappi on CPU time over every thread when importable."""

    def __init__(self, out: Path) -> None:
        self.out = out
        try:
            import yappi  # type: ignore[import-not-found,import-untyped,unused-ignore]
        except ImportError:
            self.yappi: Any = None
            self.cprofile = cProfile.Profile()
        else:
            self.yappi = yappi
            yappi.set_clock_type("cpu")

    def start(self) -> None:
        """Begin sampling."""
        if self.yappi:
            self.yappi.start()
        else:
            self.cprofile.enable()

    def stop(self) -> None:
        """Stop and write the pstats file."""
        if self.yappi:
            self.yappi.stop()
            self.yappi.get_func_stats().save(str(self.out), type="pstat")
        else:
            self.cprofile.disable()
            self.cprofile.dump_stats(self.out)


async def _snapshot(app: Asgi, paths: list[str], cookies: list[str]) -> dict[str, bytes]:
    """Every page for a visitor and three students, as bytes (the second visit: no write)."""
    found: dict[str, bytes] = {}
    for who, cookie in [("visitor", None), *((f"student{n}", c) for n, c in enumerate(cookies))]:
        for path in paths:
            found[f"{who} {path}"] = (await get(app, path, cookie))[1]
    return found


def _write_pages(folder: Path, pages: dict[str, bytes]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for key, body in pages.items():
        name = hashlib.sha1(key.encode()).hexdigest()[:12]  # noqa: S324 - a file name
        (folder / name).write_bytes(body)
        print(f"{name} {key} {len(body)} bytes")


def main() -> None:
    """Print one line of figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--students", type=int, default=300)
    parser.add_argument("--at-once", type=int, default=20)
    parser.add_argument("--profile", type=Path)
    parser.add_argument("--pages-out", type=Path)
    args = parser.parse_args()
    from app.bench.content import quiet_environment  # on exam day, the same pages as any day

    with quiet_environment():
        found = measure(args.students, args.at_once, args.profile, args.pages_out)
    print(json.dumps(found))


if __name__ == "__main__":
    main()
