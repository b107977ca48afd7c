"""`bench --scenario authoring-check`: an editor saves an exercise's statement and waits for the
grading check the save queued (model solutions accepted, starters and declared mistakes and
automatic wrong variants rejected), through the HTTP API of a real server.

Timed: from the PUT to the check's problems being ready (GET .../authoring/checks/{job_id}
answering `done`). The first save is a warm-up (the pool's first interpreters); the issue's
target is a warm check within 10 s.
"""

from __future__ import annotations

import statistics
import time
from typing import Any

from app.courses.first import first_course_slug

EXERCISE = "sinusoidal-positional-encoding"
STATEMENT = f"exercises/{EXERCISE}/statement.md"
TARGET_MS = 10_000.0
TIMEOUT = 300.0


def course() -> str:
    """The course the benchmarked server serves first (its CONTENT_DIR's, as this process's)."""
    return first_course_slug()


def _one(run_: Any, token: str, n: int) -> tuple[float, dict[str, Any]]:
    api = run_.api
    base = f"/api/courses/{course()}/authoring"
    loaded = api.call("GET", f"{base}/files/{STATEMENT}", token=token)
    text = loaded["text"].rstrip("\n") + f"\n\n<!-- bench save {n} -->\n"
    started = time.perf_counter()
    saved = api.call(
        "PUT", f"{base}/files/{STATEMENT}", {"text": text, "base": loaded["revision"]}, token
    )
    url = saved["grading"]["url"]
    while True:
        found = api.call("GET", url, token=token)
        if found["state"] in ("done", "failed"):
            return (time.perf_counter() - started) * 1000, found
        if time.perf_counter() - started > TIMEOUT:
            raise RuntimeError(f"the check {url} did not finish in {TIMEOUT:.0f} s")
        time.sleep(0.05)


def run_authoring_check(run_: Any, samples: int, editor_token: str) -> dict[str, Any]:
    """Warm-up once, then `samples` timed saves; p50/p95/max and what each check found."""
    _one(run_, editor_token, 0)
    times: list[float] = []
    problems = 0
    checks = 0
    failed = 0
    for n in range(1, samples + 1):
        ms, found = _one(run_, editor_token, n)
        times.append(ms)
        problems += len(found["problems"])
        checks = found.get("checks") or checks
        failed += found["state"] != "done"
    ordered = sorted(times)
    return {
        "exercise": EXERCISE,
        "count": len(times),
        "checks_per_save": checks,
        "p50_ms": round(statistics.median(ordered), 1),
        "p95_ms": round(ordered[max(0, round(0.95 * len(ordered)) - 1)], 1),
        "max_ms": round(ordered[-1], 1),
        "problems": problems,
        "failed_jobs": failed,
    }


def table(found: dict[str, Any]) -> list[str]:
    """The scenario's lines for the report."""
    met = "met" if found["p95_ms"] <= TARGET_MS else "MISSED"
    return [
        f"  {found['exercise']}: n={found['count']} saves, {found['checks_per_save']} gradings"
        f" each: p50 {found['p50_ms']} ms, p95 {found['p95_ms']} ms, max {found['max_ms']} ms"
        f" (target p95 <= {TARGET_MS:.0f} ms: {met}); problems {found['problems']},"
        f" failed jobs {found['failed_jobs']}"
    ]
