"""`python -m app bench`: latency through the HTTP API, compared with a fresh sandbox per job."""

from __future__ import annotations

import json
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from app.config import ROOT

KINDS = [
    ("numpy gather", "position-embedding-gather", "numpy"),
    ("torch gather", "position-embedding-gather", "torch"),
    ("flax forward", "learned-pos-embed-forward", "jax"),
]
POOL = {"numpy": 4, "torch": 2, "jax": 1}  # JAX: per exercise (pool key jax:<slug>)


class Api:
    """A tiny JSON client for the running server."""

    def __init__(self, base: str, token: str) -> None:
        self.base, self.token = base, token

    def call(self, method: str, path: str, body: Any = None) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(  # noqa: S310 - loopback only
            self.base + path,
            data=data,
            method=method,
            headers={"Authorization": f"Bearer {self.token}", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=120) as response:  # noqa: S310
            text = response.read().decode()
        return json.loads(text) if text.startswith(("{", "[")) else text

    def ready(self) -> dict[str, int]:
        text = self.call("GET", "/metrics")
        return {
            m[0]: int(m[1])
            for m in re.findall(r'course_pool_ready\{framework="([\w:-]+)"\} (\d+)', text)
        }

    def wait_pool(self, key: str | None = None, timeout: float = 180) -> None:
        """Wait until the pool is full (or, given a key, that key's part of it)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            ready = self.ready()
            wanted = {key: POOL[key.partition(":")[0]]} if key else _pool_keys()
            if all(ready.get(k, 0) >= n for k, n in wanted.items()):
                return
            time.sleep(0.05)
        raise TimeoutError(f"pool did not fill: {self.ready()}")

    def submit_and_wait(self, exercise: str, framework: str, code: str) -> tuple[float, str]:
        """Submit, then follow the submission's event stream (as the browser does) to its end."""
        started = time.perf_counter()
        sid = self.call(
            "POST", "/api/submissions", {"exercise": exercise, "framework": framework, "code": code}
        )["id"]
        while True:
            request = urllib.request.Request(  # noqa: S310 - our own http URL
                f"{self.base}/api/submissions/{sid}/events",
                headers={"Authorization": f"Bearer {self.token}"},
            )
            with urllib.request.urlopen(request, timeout=120) as stream:  # noqa: S310
                for raw in stream:
                    line = raw.decode()
                    if line.startswith("data: "):
                        body = json.loads(line[6:])
                        if body["status"] == "done":
                            return (time.perf_counter() - started) * 1000, str(body["verdict"])


def _pool_key(exercise: str, framework: str) -> str:
    return f"jax:{exercise}" if framework == "jax" else framework


def _pool_keys() -> dict[str, int]:
    """What a full pool holds: one entry per JAX exercise."""
    keys = {fw: n for fw, n in POOL.items() if fw != "jax"}
    for folder in sorted((ROOT / "exercises").glob("*/solutions/jax.py")):
        keys[f"jax:{folder.parent.parent.name}"] = POOL["jax"]
    return keys


def _solution(exercise: str, framework: str) -> str:
    return (ROOT / "exercises" / exercise / "solutions" / f"{framework}.py").read_text()


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _start_server(env: dict[str, str], port: int) -> tuple[subprocess.Popen[bytes], Api]:
    def cli(*args: str) -> str:
        out = subprocess.run(
            [sys.executable, "-m", "app", *args],
            env=env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        )
        return out.stdout.strip().splitlines()[-1]

    cli("migrate")
    cli("users", "create", "--email", "bench@example.org", "--password", "bench-password")
    token = cli("users", "token", "--email", "bench@example.org")
    log = Path(env["APP_DATA_DIR"]) / "server.log"
    server = subprocess.Popen(
        [sys.executable, "-m", "app", "serve", "--port", str(port)],
        env=env,
        cwd=ROOT,
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
    )
    api = Api(f"http://127.0.0.1:{port}", token)
    deadline = time.monotonic() + 120
    while True:
        try:
            api.call("GET", "/healthz")
            return server, api
        except (urllib.error.URLError, ConnectionError):
            if time.monotonic() > deadline or server.poll() is not None:
                raise RuntimeError(f"server did not start; see {log}") from None
            time.sleep(0.2)


def pooled(api: Api, samples: int) -> dict[str, dict[str, float]]:
    """Sequential submissions, each when a warm interpreter is ready (steady state)."""
    results: dict[str, dict[str, float]] = {}
    for label, exercise, framework in KINDS:
        code = _solution(exercise, framework)
        api.wait_pool()
        api.submit_and_wait(exercise, framework, code)  # first use computes expected outputs
        times: list[float] = []
        for _ in range(samples):
            api.wait_pool(_pool_key(exercise, framework))
            elapsed, verdict = api.submit_and_wait(exercise, framework, code)
            if verdict != "accepted":
                raise RuntimeError(f"{label}: expected accepted, got {verdict}")
            times.append(elapsed)
        results[label] = {"p50_ms": _pct(times, 0.5), "p95_ms": _pct(times, 0.95)}
        print(
            f"  pooled  {label:13s} p50 {results[label]['p50_ms']:7.1f} ms   "
            f"p95 {results[label]['p95_ms']:7.1f} ms",
            flush=True,
        )
    return results


def burst(api: Api, count: int) -> dict[str, float]:
    """`count` NumPy submissions at once: throughput, and that none is lost."""
    exercise, framework = "position-embedding-gather", "numpy"
    code = _solution(exercise, framework)
    api.wait_pool()
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=count) as executor:
        outcomes = list(
            executor.map(lambda _: api.submit_and_wait(exercise, framework, code), range(count))
        )
    elapsed = time.perf_counter() - started
    accepted = sum(v == "accepted" for _, v in outcomes)
    rate = count / elapsed
    print(
        f"  burst   {count} NumPy submissions in {elapsed:.2f} s = {rate:.1f}/s, "
        f"{accepted} accepted, {count - accepted} not",
        flush=True,
    )
    return {"count": count, "seconds": elapsed, "per_second": rate, "accepted": accepted}


def baseline(samples: int) -> dict[str, float]:
    """The usual design: a fresh bubblewrap sandbox (import included) per submission."""
    from graders.engine import Grader
    from graders.pool import PoolSettings

    # No warm-up, no compilation cache, no fork server: every job pays for its interpreter.
    grader = Grader(ROOT / "exercises", PoolSettings(sizes={}, jax_warm_up=False, fork=()))
    grader.start()
    results: dict[str, float] = {}
    try:
        for label, exercise, framework in KINDS:
            code = _solution(exercise, framework)
            grader.grade(exercise=exercise, code=code, framework=framework)
            times = []
            for _ in range(samples):
                started = time.perf_counter()
                report = grader.grade(exercise=exercise, code=code, framework=framework)
                times.append((time.perf_counter() - started) * 1000)
                assert report.verdict == "accepted", report.message
            results[label] = statistics.median(times)
            print(f"  fresh   {label:13s} p50 {results[label]:7.1f} ms", flush=True)
    finally:
        grader.stop()
    return results


def run(*, samples: int, burst_size: int, baseline_samples: int) -> dict[str, Any]:
    """Run every measurement and print a summary; returns the numbers."""
    with tempfile.TemporaryDirectory(prefix="course-bench-") as data_dir:
        env = {
            **os.environ,
            "APP_DATA_DIR": data_dir,
            "POOL_SIZES": json.dumps(POOL),
            "POOL_WARM_ON_START": "true",
            "GRADING_WORKERS": "4",
            "SUBMISSIONS_PER_MINUTE": "100000",  # the bench is one account submitting a lot
        }
        env.pop("DATABASE_URL", None)
        env.pop("REDIS_URL", None)
        print(f"bench: {os.cpu_count()} cores; pool {POOL}; {samples} samples per kind", flush=True)
        server, api = _start_server(env, _free_port())
        try:
            pool_numbers = pooled(api, samples)
            burst_numbers = burst(api, burst_size)
        except Exception:
            log = Path(data_dir) / "server.log"
            print(f"bench failed; the server's log ends with:\n{log.read_text()[-4000:]}")
            raise
        finally:
            server.terminate()
            server.wait(30)
    fresh = baseline(baseline_samples)
    ratios = {label: fresh[label] / pool_numbers[label]["p50_ms"] for label in fresh}
    for label, ratio in ratios.items():
        print(f"  ratio   {label:13s} fresh sandbox / warm pool = {ratio:5.1f}x")
    summary = {
        "pooled": pool_numbers,
        "burst": burst_numbers,
        "fresh_p50_ms": fresh,
        "ratio": ratios,
    }
    print(json.dumps(summary))
    return summary
