"""`make compose-check`: the compose deployment started and exercised from outside.

Run from the repository root after `make images` (the Makefile does both). Every request goes to
the web port the check publishes on 127.0.0.1; faults are done to the check's own containers
(project `coursecheck`). One line per step with its time; exit 1 on any miss. Everything stops
at the end (`--keep` leaves it running); the grading caches' volume is kept for the next run.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import secrets
import shlex
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from checkhard import bad_input, hardening
from checklib import ROOT, Burst, Miss, Statuses, Steps, Student, log, run, seed_caches, wait_for

PROJECT = "coursecheck"
DOCKER = os.environ.get("DOCKER", "docker")
COMPOSE = shlex.split(os.environ.get("COMPOSE", "docker-compose"))
GATHER = "position-embedding-gather"
FLAX = "learned-pos-embed-forward"
COUNTS_SQL = (
    "SELECT json_build_object('users', (SELECT count(*) FROM users),"
    " 'submissions', (SELECT count(*) FROM submissions),"
    " 'graded', (SELECT count(*) FROM submissions WHERE verdict IS NOT NULL),"
    " 'score_sum', (SELECT round(coalesce(sum(score), 0)::numeric, 4) FROM submissions),"
    " 'quiz_attempts', (SELECT count(*) FROM quiz_attempts))"
)
UNFINISHED_SQL = "SELECT count(*) FROM submissions WHERE status <> 'done'"


PROJECT_ARGS = ["-p", PROJECT, "--env-file", "deploy/images.env"]


def compose(*args: str, check: bool = True, timeout: float = 900) -> str:
    argv = [*COMPOSE, *PROJECT_ARGS, *args]
    return run(argv, check=check, timeout=timeout).stdout.decode()


def containers(service: str) -> list[str]:
    out = run(
        [
            DOCKER,
            "ps",
            "-aq",
            "--filter",
            f"label=com.docker.compose.project={PROJECT}",
            "--filter",
            f"label=com.docker.compose.service={service}",
        ]
    ).stdout.decode()
    return out.split()


def health(container: str) -> str:
    fmt = "{{if .State.Health}}{{.State.Health.Status}}{{else}}{{.State.Status}}{{end}}"
    return run([DOCKER, "inspect", "-f", fmt, container]).stdout.decode().strip()


def up_and_healthy(workers: int, timeout: float = 1800) -> str:
    """Start with N workers and wait for health; `prepare` from an empty cache may take 20
    minutes on a busy 2-core machine (JAX compilations for every course), hence the bound."""
    compose("up", "-d", "--no-build", "--scale", f"worker={workers}", timeout=timeout)

    def ready() -> bool:
        names = containers("web") + containers("worker")
        return len(names) == 1 + workers and all(health(c) == "healthy" for c in names)

    wait_for("web and workers healthy", ready, timeout, 3)
    return f"web and {workers} workers healthy"


def answers(exercise: str, framework: str) -> tuple[str, str]:
    """The model solution and a declared mistake of one exercise."""
    folder = ROOT / "exercises" / exercise
    right = (folder / "solutions" / f"{framework}.py").read_text()
    mistakes = yaml.safe_load((folder / "mistakes.yaml").read_text())["mistakes"]
    wrong = next(m["code"] for m in mistakes if m["framework"] == framework)
    return right, wrong


def quiz_answers(lesson: str) -> dict[str, Any]:
    text = (ROOT / "lessons" / f"{lesson}.md").read_text()
    meta = yaml.safe_load(text.split("---")[1])
    out: dict[str, Any] = {}
    for q in meta["quiz"]:
        correct = [c["id"] for c in q.get("choices", []) if c.get("correct")]
        if q["type"] == "single" and correct:
            out[q["id"]] = correct[0]
        elif q["type"] == "multiple":
            out[q["id"]] = correct
        elif q["type"] == "shape" and q.get("accept"):
            out[q["id"]] = q["accept"][0]
    return out  # numeric questions draw parameters per student: left unanswered


def psql(container: str, sql: str) -> str:
    argv = [DOCKER, "exec", container, "psql", "-U", "course", "-d", "course", "-tAc", sql]
    return run(argv).stdout.decode().strip()


def db_counts(container: str) -> dict[str, Any]:
    counts: dict[str, Any] = json.loads(psql(container, COUNTS_SQL))
    return counts


def unfinished(container: str) -> int:
    return int(psql(container, UNFINISHED_SQL))


def job_events(container: str, event: str) -> list[int]:
    """Submission ids of one kind of job event in a container's JSON log, in order."""
    result = run([DOCKER, "logs", container])
    found = []
    for line in (result.stdout + result.stderr).decode(errors="replace").splitlines():
        if f'"{event}"' in line and line.startswith("{"):
            entry = json.loads(line)
            if entry.get("event") == event and "submission_id" in entry:
                found.append(int(entry["submission_id"]))
    return found


def stored_events() -> dict[int, int]:
    """How many times each submission's report was stored, from every worker's JSON log."""
    seen: dict[int, int] = {}
    for container in containers("worker") + containers("web"):
        for sid in job_events(container, "stored"):
            seen[sid] = seen.get(sid, 0) + 1
    return seen


def kill_a_busy_worker() -> tuple[str, set[int]]:
    """SIGKILL a worker container while it holds jobs it has not stored; return it and them."""

    def busy() -> tuple[str, set[int]] | None:
        for container in containers("worker"):
            held = set(job_events(container, "claimed")) - set(job_events(container, "stored"))
            if held:
                return container, held
        return None

    victim: tuple[str, set[int]] = wait_for("a worker holding a job", busy, 120, 0.2)
    run([DOCKER, "kill", "-s", "KILL", victim[0]])
    return victim


def check_verdicts(
    sent: list[tuple[Student, int, bool]], timeout: float, held: frozenset[int] = frozenset()
) -> str:
    """Expected verdicts; one stored report each (a job the killed worker held may have been
    stored in the instant before its log line was written: its row is done, its line lost)."""
    deadline = time.monotonic() + timeout
    wrong = []
    for student, sid, good in sent:
        data = student.verdict(sid, max(10.0, deadline - time.monotonic()))
        expected = "accepted" if good else "wrong_answer"
        if data.get("verdict") != expected:
            wrong.append(f"{sid}: {data.get('verdict')} (expected {expected})")
    if wrong:
        raise Miss(f"{len(wrong)} wrong verdicts: {', '.join(wrong[:5])}")
    stored = stored_events()
    twice = {sid: n for sid, n in stored.items() if n != 1}
    missing = [sid for _s, sid, _g in sent if sid not in stored and sid not in held]
    if twice or missing:
        raise Miss(f"reports stored more than once: {twice}; never stored: {missing[:10]}")
    return f"{len(sent)} submissions, each with one stored report and the expected verdict"


def load_environment(port: int) -> None:
    """The image names `make images` chose, the port, and secrets made for this run."""
    for line in Path("deploy/images.env").read_text().splitlines():
        if "=" in line and not line.startswith("#"):
            key, value = line.split("=", 1)
            os.environ.setdefault(key, value)
    os.environ.update(
        WEB_PORT=str(port),
        POSTGRES_PASSWORD=os.environ.get("POSTGRES_PASSWORD") or secrets.token_urlsafe(18),
        SECRET_KEY=os.environ.get("SECRET_KEY") or secrets.token_urlsafe(48),
    )


def fresh_start() -> None:
    """Nothing of the check left running, and empty database and Redis volumes."""
    compose("down", "--remove-orphans", timeout=300)
    for volume in ("db-data", "redis-data"):
        run([DOCKER, "volume", "rm", "-f", f"{PROJECT}_{volume}"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, default=int(os.environ.get("CHECK_PORT", "18080")))
    parser.add_argument("--students", type=int, default=6)
    parser.add_argument("--per-student", type=int, default=6, help="submissions per burst")
    parser.add_argument("--keep", action="store_true", help="leave the deployment running")
    parser.add_argument(
        "--seed-caches", type=Path, default=os.environ.get("COMPOSE_SEED_CACHES") or None
    )
    args = parser.parse_args()
    os.chdir(ROOT)
    load_environment(args.port)
    base = f"http://127.0.0.1:{args.port}"
    steps = Steps()
    statuses = Statuses()
    try:
        with steps.step("fresh start (data volumes of the check removed)") as notes:
            fresh_start()
            notes.append("app-data (grading caches) kept")
            if args.seed_caches:
                volume, image = f"{PROJECT}_app-data", os.environ["APP_IMAGE"]
                notes.append(seed_caches(DOCKER, image, volume, args.seed_caches.resolve()))
        with steps.step("bad input: one sentence naming the fix, at once") as notes:
            notes.extend(bad_input([*COMPOSE, *PROJECT_ARGS], DOCKER, os.environ["APP_IMAGE"]))
        with steps.step("docker-compose up; migrate, prepare, health") as notes:
            notes.append(up_and_healthy(2))
        with steps.step("hardening as documented") as notes:
            notes.append(hardening(DOCKER, containers))
        first = Student(base, f"first-{uuid.uuid4().hex[:8]}@example.org", statuses)
        with steps.step("a student signs up") as notes:
            first.signup()
            notes.append(first.email)
        for exercise, framework in ((GATHER, "numpy"), (FLAX, "jax")):
            with steps.step(f"wrong then accepted: {exercise} ({framework})") as notes:
                right, wrong = answers(exercise, framework)
                for code, expected in ((wrong, "wrong_answer"), (right, "accepted")):
                    started = time.monotonic()
                    first_id = first.submit(exercise, framework, code)
                    data = first.verdict(first_id, 600)
                    if data.get("verdict") != expected:
                        raise Miss(f"verdict {data.get('verdict')}, expected {expected}")
                    notes.append(f"{expected} in {time.monotonic() - started:.1f} s")
        with steps.step("the student takes a quiz") as notes:
            quiz = quiz_answers("01-why-position")
            answer = first.post_json("/api/lessons/why-position/quiz", {"answers": quiz})
            result = answer.json() if answer.status == 200 else {}
            if answer.status != 200 or result.get("correct") != len(quiz):
                raise Miss(f"quiz answered {answer.status}: {answer.body[:200]!r}")
            notes.append(f"{result['correct']} of {result['total']} right ({len(quiz)} answered)")
        students = [
            Student(base, f"s{i}-{uuid.uuid4().hex[:8]}@example.org", statuses)
            for i in range(args.students)
        ]
        with steps.step(f"pages: {args.students} students sign up and read") as notes:
            pages = ["/", "/lessons/why-position", f"/exercises/{GATHER}", "/api/exercises"]
            times: list[float] = []

            def read(student: Student) -> None:
                student.signup()
                for path in pages * 3:
                    started = time.monotonic()
                    page = student.request("GET", path)
                    times.append(time.monotonic() - started)
                    if page.status not in (200, 503):
                        raise Miss(f"GET {path} answered {page.status}")

            with concurrent.futures.ThreadPoolExecutor(args.students) as pool:
                for job in [pool.submit(read, s) for s in students]:
                    job.result(timeout=600)
            times.sort()
            notes.append(
                f"{len(times)} pages, p50 {times[len(times) // 2] * 1000:.0f} ms, "
                f"p95 {times[int(len(times) * 0.95)] * 1000:.0f} ms"
            )
        burst = Burst(students, args.per_student, (GATHER, "numpy", *answers(GATHER, "numpy")))
        total = args.students * args.per_student
        with steps.step("grading burst, a worker SIGKILLed mid-burst") as notes:
            killed: list[tuple[str, set[int]]] = []
            sent = burst.run(lambda: killed.append(kill_a_busy_worker()), total // 3)
            run([DOCKER, "start", *(k[0] for k in killed)])  # as its restart policy would
            held = frozenset(i for k in killed for i in k[1])
            notes.append(check_verdicts(sent, 900, held))
            notes.append(f"it held {sorted(held)}")
            rerun = psql(containers("db")[0], "SELECT count(*) FROM submissions WHERE attempts > 1")
            notes.append(f"{rerun} claimed again after the kill")
        for service in ("db", "redis"):
            with steps.step(f"grading burst, restart {service} mid-burst") as notes:
                before = dict(statuses.counts)
                sent = burst.run(lambda s=service: compose("restart", s, timeout=300), total // 3)
                wait_for(
                    "web healthy again", lambda: health(containers("web")[0]) == "healthy", 300, 2
                )
                notes.append(check_verdicts(sent, 900))
                window = Statuses()
                window.counts.update({k: v - before.get(k, 0) for k, v in statuses.counts.items()})
                notes.append(f"answers meanwhile: {window.summary()}")
                if window.bad():
                    raise Miss(f"students saw {window.bad()} (503 with Retry-After expected)")
        db = containers("db")[0]
        with steps.step("pg_dump backup restored into a fresh volume") as notes:
            wait_for("every submission graded", lambda: unfinished(db) == 0, 600, 2)
            dump = run([DOCKER, "exec", db, "pg_dump", "-U", "course", "-d", "course", "-Fc"])
            Path("deploy/backups").mkdir(exist_ok=True)
            Path("deploy/backups/compose-check.dump").write_bytes(dump.stdout)
            counts = db_counts(db)
            restored = restore(dump.stdout, os.environ["POSTGRES_PASSWORD"])
            notes.append(f"{len(dump.stdout) // 1024} KiB; {counts}")
            if restored != counts:
                raise Miss(f"restored {restored}, expected {counts}")
        with steps.step("docker-compose down keeps volumes; up again") as notes:
            counts = db_counts(db)
            compose("down", timeout=300)
            up_and_healthy(2)
            again = db_counts(containers("db")[0])
            probe = first.request("GET", f"/api/submissions/{first_id}")
            if again != counts or probe.status != 200:
                raise Miss(f"after up: {again} (before: {counts}); old session: {probe.status}")
            notes.append("same counts; the first student's session still works")
    except Miss as exc:
        steps.misses.append(str(exc))
        print(f"compose-check: MISS {exc}", flush=True)
    finally:
        if not args.keep:
            compose("down", "--remove-orphans", check=False, timeout=300)
    return steps.summary("compose-check")


def restore(dump: bytes, password: str) -> dict[str, Any]:
    """Restore a dump into a new database on a fresh volume; return its counts; remove both."""
    name, image = f"{PROJECT}-restore", os.environ.get("POSTGRES_IMAGE", "postgres:15")
    run([DOCKER, "rm", "-f", "-v", name], check=False)
    run([DOCKER, "volume", "rm", "-f", name], check=False)
    run(
        [
            DOCKER,
            "run",
            "-d",
            "--name",
            name,
            "-e",
            f"POSTGRES_PASSWORD={password}",
            "-e",
            "POSTGRES_USER=course",
            "-e",
            "POSTGRES_DB=course",
            "-v",
            f"{name}:/var/lib/postgresql/data",
            "--network",
            "none",
            image,
        ]
    )
    ready = [DOCKER, "exec", name, "pg_isready", "-U", "course", "-d", "course"]
    try:
        for _ in range(2):  # the official image restarts once after its first set-up
            wait_for("the restore database", lambda: run(ready, check=False).returncode == 0, 120)
            time.sleep(2)
        run(
            [
                DOCKER,
                "exec",
                "-i",
                name,
                "pg_restore",
                "-U",
                "course",
                "-d",
                "course",
                "--no-owner",
                "--exit-on-error",
            ],
            input=dump,
        )
        return db_counts(name)
    finally:
        run([DOCKER, "rm", "-f", "-v", name], check=False)
        run([DOCKER, "volume", "rm", "-f", name], check=False)
        log("restore database removed")


if __name__ == "__main__":
    sys.exit(main())
