"""The `pages` scenario: a class opens the course at once, and their verdicts stream back live.

N students, each signed in with a browser session of their own, load five pages one after the
other (home, two lessons, an exercise, the exercise list), all starting at the same moment,
while a probe asks `/healthz` every quarter second. Then S students submit at once and each
follows their submission's event stream to the verdict. A page counts as an error unless it
is 200, or 503 with Retry-After (the server shedding load as it should).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import secrets
import time
from collections.abc import Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import create_engine, insert, select

from app.bench.aio import Client, HttpError
from app.bench.scenarios import answers
from app.bench.server import Deployment
from app.config import Settings
from app.offerings.first import legacy_offering_id_query
from app.offerings.models import Enrollment
from app.users.models import ApiToken, User, WebSession
from app.users.service import hash_password, hash_token

SSE_EXERCISE = ("position-embedding-gather", "numpy")
T = TypeVar("T")


@dataclass
class Student:
    """One seeded account: its browser cookie and its bearer token."""

    cookie: str
    token: str


def seed_students(env: dict[str, str], count: int, tag: str) -> list[Student]:
    """Accounts with a browser session and a token each, written straight to the database.

    Why not sign up through the site: a thousand argon2 hashes take minutes; these accounts
    share one hash of a password nobody knows, which changes nothing the pages do.
    """
    settings = Settings(
        app_data_dir=Path(env["APP_DATA_DIR"]), database_url=env.get("DATABASE_URL") or None
    )
    engine = create_engine(settings.sqlalchemy_url)
    shared_hash = hash_password(secrets.token_urlsafe(16))
    students = [Student(secrets.token_urlsafe(32), secrets.token_urlsafe(32)) for _ in range(count)]
    expires = dt.datetime.now(dt.UTC) + dt.timedelta(days=1)
    try:
        with engine.begin() as conn:
            ids = [
                conn.execute(  # type: ignore[index]
                    insert(User).values(
                        email=f"pages-{tag}-{n}@example.org",
                        name=f"Student {n}",
                        password_hash=shared_hash,
                        role="student",
                    )
                ).inserted_primary_key[0]
                for n in range(count)
            ]
            conn.execute(
                insert(WebSession),
                [
                    {
                        "user_id": uid,
                        "token_hash": hash_token(s.cookie),
                        "csrf_token": secrets.token_hex(32),
                        "expires_at": expires,
                    }
                    for uid, s in zip(ids, students, strict=True)
                ],
            )
            # A class is enrolled: its students are students of the first offering.
            first = conn.execute(select(legacy_offering_id_query())).scalar_one()
            conn.execute(
                insert(Enrollment),
                [
                    {"offering_id": first, "user_id": uid, "role": "student", "source": "admin"}
                    for uid in ids
                ],
            )
            conn.execute(
                insert(ApiToken),
                [
                    {"user_id": uid, "token_hash": hash_token(s.token)}
                    for uid, s in zip(ids, students, strict=True)
                ],
            )
    finally:
        engine.dispose()
    return students


@dataclass
class PageStats:
    """What the students met: every page's time and status, and the health probe's."""

    ms: list[float] = field(default_factory=list)  # 200s only
    statuses: dict[str, int] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)  # anything but 200 or 503 + Retry-After
    shed: int = 0  # 503 with Retry-After
    health_ms: list[float] = field(default_factory=list)
    health_failures: int = 0
    seconds: float = 0.0

    def count(self, key: str) -> None:
        """Tally one outcome."""
        self.statuses[key] = self.statuses.get(key, 0) + 1


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))], 1) if values else 0


async def _student(base: str, student: Student, paths: list[str], stats: PageStats) -> None:
    client = Client(base, headers={"Cookie": f"session={student.cookie}"})
    try:
        for path in paths:
            started = time.perf_counter()
            try:
                answer = await client.request("GET", path)
            except HttpError as exc:
                stats.count("connection failed")
                stats.errors.append(str(exc))
                continue
            ms = (time.perf_counter() - started) * 1000
            stats.count(str(answer.status))
            if answer.status == 200:
                stats.ms.append(ms)
            elif answer.status == 503 and "retry-after" in answer.headers:
                stats.shed += 1
            else:
                stats.errors.append(f"GET {path}: {answer.status} {answer.body[:200]!r}")
    finally:
        await client.close()


async def _probe_health(base: str, stats: PageStats, done: asyncio.Event) -> None:
    client = Client(base, timeout=10.0)
    try:
        while not done.is_set():
            started = time.perf_counter()
            try:
                answer = await client.request("GET", "/healthz")
                if answer.status == 200:
                    stats.health_ms.append((time.perf_counter() - started) * 1000)
                else:
                    stats.health_failures += 1
            except HttpError:
                stats.health_failures += 1
            await asyncio.sleep(0.25)
    finally:
        await client.close()


def _run(main: Coroutine[Any, Any, T]) -> T:
    """Run the simulated students on uvloop, as the server runs: on these two shared cores the
    load generator's own CPU is not the server's (about 8% less of it than on asyncio's loop)."""
    try:
        import uvloop
    except ImportError:  # uvloop is not built for every platform (pyproject.toml)
        return asyncio.run(main)
    return uvloop.run(main)


def page_paths(base: str) -> list[str]:
    """Home, the first two lessons, the first exercise that is not a lab, the exercise list."""

    async def look() -> list[str]:
        client = Client(base)
        try:
            lessons = (await client.request("GET", "/api/lessons")).json()
            exercises = (await client.request("GET", "/api/exercises")).json()
        finally:
            await client.close()
        exercise = next(ex for ex in exercises if ex["kind"] != "experiment")
        return ["/", lessons[0]["url"], lessons[1]["url"], exercise["url"], "/api/exercises"]

    return asyncio.run(look())


def pages(run: Deployment, students: int) -> dict[str, Any]:
    """N students load the five pages at the same moment; the summary of what they met."""
    base = run.api.base
    paths = page_paths(base)
    seeded = seed_students(run.env, students, secrets.token_hex(4))

    async def go() -> PageStats:
        stats = PageStats()
        done = asyncio.Event()
        probe = asyncio.create_task(_probe_health(base, stats, done))
        started = time.perf_counter()
        await asyncio.gather(*(_student(base, s, paths, stats) for s in seeded))
        stats.seconds = time.perf_counter() - started
        done.set()
        await probe
        return stats

    server_before = run.server_cpu_seconds()
    loadgen_before = time.process_time()
    stats = _run(go())
    loadgen = time.process_time() - loadgen_before
    server_after = run.server_cpu_seconds()
    served = len(stats.ms) + stats.shed
    return {
        "students": students,
        "pages": students * len(paths),
        "ok": len(stats.ms),
        "p50_ms": _pct(stats.ms, 0.5),
        "p95_ms": _pct(stats.ms, 0.95),
        "max_ms": _pct(stats.ms, 1.0),
        "pages_per_second": round(len(stats.ms) / stats.seconds, 1) if stats.seconds else 0,
        "shed_503": stats.shed,
        "errors": len(stats.errors),
        "first_errors": stats.errors[:5],
        "statuses": stats.statuses,
        "health_probes": len(stats.health_ms) + stats.health_failures,
        "health_failures": stats.health_failures,
        "health_max_ms": _pct(stats.health_ms, 1.0),
        "seconds": round(stats.seconds, 2),
        # CPU per answered page: the serve process and all under it (in the embedded default the
        # local grader pool too), and the load generator's as a yardstick of the
        # machine's speed (its work per page is fixed, so a higher figure means a slower run).
        "server_cpu_ms_per_page": (
            round((server_after - server_before) / served * 1000, 3)
            if served and server_before is not None and server_after is not None
            else None
        ),
        "loadgen_cpu_ms_per_page": round(loadgen / served * 1000, 3) if served else None,
    }


async def _follow(base: str, student: Student, code: str, right: bool) -> tuple[str, bool]:
    """Submit, then read the event stream (reconnecting as a browser does) to the verdict."""
    headers = {"Authorization": f"Bearer {student.token}"}
    client = Client(base, headers=headers, timeout=120.0)
    body = {"exercise": SSE_EXERCISE[0], "framework": SSE_EXERCISE[1], "code": code}
    try:
        answer = await client.request("POST", "/api/submissions", body)
    finally:
        await client.close()
    if answer.status != 202:
        return f"refused {answer.status}", right
    sid = answer.json()["id"]
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        stream = Client(base, headers=headers, timeout=120.0)
        buffer = b""
        try:
            async for chunk in stream.stream(f"/api/submissions/{sid}/events"):
                buffer += chunk
                while b"\n\n" in buffer:
                    event, buffer = buffer.split(b"\n\n", 1)
                    for line in event.decode().splitlines():
                        if line.startswith("data: ") and '"status": "done"' in line:
                            return str(json.loads(line[6:])["verdict"]), right
        except HttpError:
            await asyncio.sleep(0.5)
    return "lost", right


def streams(run: Deployment, count: int) -> dict[str, Any]:
    """N students submit at once and each follows the live stream to the verdict."""
    base = run.api.base
    seeded = seed_students(run.env, count, secrets.token_hex(4))
    right, wrong = answers(*SSE_EXERCISE)
    picks = [
        (right.code, True) if n % 2 == 0 else (wrong[n % len(wrong)].code, False)
        for n in range(count)
    ]

    async def go() -> tuple[list[tuple[str, bool]], float]:
        started = time.perf_counter()
        results = await asyncio.gather(
            *(_follow(base, s, code, ok) for s, (code, ok) in zip(seeded, picks, strict=True))
        )
        return list(results), time.perf_counter() - started

    results, seconds = _run(go())
    delivered = [v for v, _ in results if v != "lost" and not v.startswith("refused")]
    wrong_verdicts = sum(
        1 for v, ok in results if v in ("lost", "internal_error") or (v == "accepted") != ok
    )
    return {
        "streams": count,
        "delivered": len(delivered),
        "lost": sum(v == "lost" for v, _ in results),
        "refused": sum(v.startswith("refused") for v, _ in results),
        "wrong_verdicts": wrong_verdicts,
        "seconds": round(seconds, 2),
    }
