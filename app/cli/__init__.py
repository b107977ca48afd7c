"""`python -m app ...`: the one command line for operators, instructors and scripts."""

from __future__ import annotations

import argparse
import errno
import json
import logging
import socket
import sys
from collections.abc import Callable
from typing import Any

from pydantic import ValidationError

from app.cli import courses, lti, measure, offerings, stats
from app.cli.common import fail as _fail
from app.config import ROOT, get_settings
from app.users.models import Role


def _port_free(host: str, port: int) -> str | None:
    """None when the port can be bound, else a sentence saying why not."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                return (
                    f"port {port} on {host} is already in use (another server is running?); "
                    f"stop it or choose another port with --port"
                )
            return f"cannot listen on {host}:{port}: {exc.strerror}"
    return None


def cmd_serve(args: argparse.Namespace) -> int:
    """Serve the web app after checking the things that make a start fail confusingly."""
    import uvicorn

    problem = _port_free(args.host, args.port)
    if problem:
        return _fail(problem)
    if args.workers > 1 and get_settings().grades_in_web:
        return _fail(
            "--workers above 1 needs the scale-out mode (REDIS_URL set, graders in `worker` "
            "processes): each web process would otherwise start a grader pool of its own"
        )
    if args.workers > 1 and args.reload:
        return _fail("--reload runs one process; leave out --workers or --reload")
    from app.web.capacity import raise_open_files_limit

    raise_open_files_limit()
    print(f"Serving the course on http://{args.host}:{args.port}", flush=True)
    options = serve_options(reload=args.reload)
    if args.workers > 1:
        options["workers"] = args.workers
    uvicorn.run(**options, host=args.host, port=args.port)
    return 0


def serve_options(*, reload: bool) -> dict[str, Any]:
    """How uvicorn runs the app; with reload, code changes restart it and content reloads live.

    Uvicorn restarts the process when Python code changes; lessons and exercises are re-read in
    place by the content watcher of `create_dev_app` (no restart, the grader pool stays warm).
    """
    if not reload:
        return {
            "app": "app.main:create_app",
            "factory": True,
            "log_level": "info",
            "access_log": get_settings().web_access_log,
        }
    return {
        "app": "app.live_reload:create_dev_app",
        "factory": True,
        "log_level": "info",
        "reload": True,
        "reload_dirs": [str(ROOT / d) for d in ("app", "graders")],
    }


def cmd_migrate(_args: argparse.Namespace) -> int:
    """Bring the schema to the newest migration."""
    from app.db import ensure_data_dir
    from app.migrate import upgrade_head

    ensure_data_dir()
    upgrade_head()
    print("database is up to date")
    return 0


def cmd_prepare(_args: argparse.Namespace) -> int:
    """Build what grading needs before the first start: JAX's cache, known mistakes' outputs."""
    from app.grading.service import jax_cache_dir, prepare_jax_cache, prepare_mistakes

    seconds = prepare_jax_cache()
    print(f"JAX compilation cache in {jax_cache_dir()} is up to date ({seconds:.1f} s)")
    print(f"expected outputs and known mistakes of {prepare_mistakes()} exercises are ready")
    return 0


def _progress_printer() -> Callable[[int, int, str], None]:
    """Grading progress on stderr: a redrawn bar on a terminal, a line per 10% otherwise."""
    tty = sys.stderr.isatty()

    def show(done: int, total: int, label: str) -> None:
        if tty:
            filled = round(20 * done / total)
            bar = "#" * filled + " " * (20 - filled)
            end = "\n" if done == total else ""
            sys.stderr.write(f"\r\033[Kgrading [{bar}] {done}/{total} {label[:50]}{end}")
        elif done == total or done * 10 // total != (done - 1) * 10 // total:
            sys.stderr.write(f"grading {done}/{total}\n")
        sys.stderr.flush()

    return show


def cmd_worker(args: argparse.Namespace) -> int:
    """Grade jobs from the Redis queue (scale-out mode) until SIGTERM drains this process."""
    from app.grading.worker import check_health, run_worker

    if args.health:
        return check_health()
    from app.jobs.lanes import LANES

    lanes = tuple(lane.strip() for lane in args.lanes.split(",") if lane.strip())
    unknown = sorted(set(lanes) - set(LANES))
    if unknown or not lanes:
        return _fail(f"unknown lanes {unknown or lanes}: choose from {', '.join(LANES)}", 2)
    return run_worker(concurrency=args.concurrency, lanes=lanes)


def cmd_validate(args: argparse.Namespace) -> int:
    """Check all content; exit 1 on any problem."""
    from app.authoring.validate import validate_course

    summary = validate_course(
        grade=not args.no_grade, progress=_progress_printer(), regrade=args.regrade
    )
    if args.json:
        print(json.dumps(summary))
    else:
        print(
            f"{summary['lessons']} lessons, {summary['quiz_questions']} quiz questions, "
            f"{summary['exercises']} exercises, {summary['misconceptions']} misconceptions, "
            f"{summary['assessments']} assessments"
        )
        for problem in summary["problems"]:
            where = f"{problem['path']}:{problem['line']}" if problem["line"] else problem["path"]
            print(f"  problem: {where}: {problem['message']}")
        print("OK" if not summary["problems"] else f"{len(summary['problems'])} problem(s)")
    return 1 if summary["problems"] else 0


def cmd_experiments(args: argparse.Namespace) -> int:
    """Run (or read from the cache) the lab's reference experiments and print their tables."""
    from app.content.lab import format_table, lab_folders, reference_runs

    settings = get_settings()
    try:
        folders = lab_folders(settings.exercises_dir, args.exercise)
    except LookupError as exc:
        return _fail(str(exc), 2)
    cache = settings.experiments_cache_path
    for folder in folders:
        results = reference_runs(folder, cache, lambda what: print(what, file=sys.stderr))
        print(format_table(folder.name, results), flush=True)
    return 0


def cmd_grade(args: argparse.Namespace) -> int:
    """Grade a file exactly as the web app would; exit 0 whatever the verdict."""
    from pathlib import Path

    from app.grading.service import get_grader, shutdown_grader
    from graders import VERDICT_WORDS, UnknownExercise, UnknownFramework, not_utf8

    path = Path(args.file)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return _fail(f"no such file: {path}", 2)
    except OSError as exc:
        return _fail(f"cannot read {path}: {exc.strerror}", 2)
    folder = None
    if args.course is not None:
        from app.courses.service import process_registry

        source = process_registry().source(args.course)
        if source is None:
            known = ", ".join(process_registry().slugs())
            return _fail(f"unknown course '{args.course}' (courses: {known})", 2)
        folder = source.exercises_dir
    grader = get_grader(warm=False)
    try:
        try:
            code = raw.decode("utf-8")
        except UnicodeDecodeError as exc:  # still a report: the student's file, not our fault
            grader.check(exercise=args.exercise, framework=args.framework, exercises_dir=folder)
            report = not_utf8(raw, exc)
        else:
            report = grader.grade(
                exercise=args.exercise,
                code=code,
                framework=args.framework,
                mode=args.mode,
                exercises_dir=folder,
            )
    except UnknownExercise:
        return _fail(f"unknown exercise '{args.exercise}'; see GET /api/exercises", 2)
    except UnknownFramework:
        offered = ", ".join(grader.spec(args.exercise, folder).frameworks)
        return _fail(
            f"exercise '{args.exercise}' is not offered in '{args.framework}' (offered: {offered})",
            2,
        )
    finally:
        shutdown_grader()
    # Grading unavailable here (no bubblewrap...): a report still, but not a verdict on the code.
    status = 3 if report.verdict == "internal_error" else 0
    if status:
        print(report.message, file=sys.stderr)
    if args.json:
        print(json.dumps(report.to_dict()))
        return status
    print(
        f"{VERDICT_WORDS[report.verdict]} (score {report.score:.2f}, "
        f"{report.duration_ms:.0f} ms): {report.message}"
    )
    for test in report.tests:
        mark = "ok  " if test.passed else "FAIL"
        hidden = " (hidden)" if test.hidden else ""
        print(f"  {mark} {test.name}{hidden}: {test.message}")
        if test.misconception:
            print(f"       hint: {test.misconception['hint']}")
    return status


def cmd_new(args: argparse.Namespace) -> int:
    """Scaffold a draft exercise or lesson with every field explained."""
    from app.authoring.scaffold import ScaffoldError, new_exercise, new_lesson

    content_dir = get_settings().content_dir
    try:
        if args.kind == "exercise":
            frameworks = [f.strip() for f in args.frameworks.split(",") if f.strip()]
            paths = new_exercise(content_dir, args.slug, title=args.title, frameworks=frameworks)
        else:
            paths = [new_lesson(content_dir, args.slug, title=args.title)]
    except ScaffoldError as exc:
        return _fail(str(exc))
    for path in paths:
        print(f"created {path.relative_to(content_dir)}")
    print(
        f"The {args.kind} is a draft (only instructors see it). Edit the TODOs, then run "
        "`python -m app validate`; set `draft: false` to publish."
    )
    return 0


def cmd_schemas(args: argparse.Namespace) -> int:
    """Write JSON Schemas of the content files for editor completion."""
    from pathlib import Path

    from app.authoring.jsonschema import write_schemas

    for path in write_schemas(Path(args.out)):
        print(f"wrote {path}")
    return 0


def cmd_users(args: argparse.Namespace) -> int:
    """Create accounts and issue tokens for scripts."""
    from app.db import session_factory
    from app.users.service import AccountError, create_user, get_user_by_email, issue_api_token

    with session_factory()() as session:
        if args.users_command == "create":
            try:
                user, created = create_user(
                    session=session,
                    email=args.email,
                    password=args.password,
                    role=Role(args.role),
                    name=args.name or "",
                )
            except AccountError as exc:
                return _fail(str(exc))
            print(f"{'created' if created else 'already exists'}: {user.email} ({user.role})")
            return 0
        user_or_none = get_user_by_email(session=session, email=args.email)
        if user_or_none is None:
            return _fail(f"no account with email {args.email}; create it with `users create`")
        print(issue_api_token(session=session, user=user_or_none))
        return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser, separate so tests can inspect it."""
    parser = argparse.ArgumentParser(prog="python -m app", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="serve the web app")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument(
        "--reload", action="store_true", help="restart on code change, reload content live"
    )
    serve.add_argument("--workers", type=int, default=1, help="web processes (scale-out mode only)")
    serve.set_defaults(func=cmd_serve, needs_database=True)
    sub.add_parser("migrate", help="apply database migrations").set_defaults(func=cmd_migrate)
    prepare = sub.add_parser("prepare", help="fill JAX's cache and the known mistakes' outputs")
    prepare.set_defaults(func=cmd_prepare)
    worker = sub.add_parser("worker", help="grade jobs from the Redis queue (needs REDIS_URL)")
    worker.add_argument(
        "--concurrency", type=int, help="jobs graded at once (default: GRADING_WORKERS)"
    )
    worker.add_argument(
        "--health", action="store_true", help="exit 0 if a worker on this host is alive"
    )
    worker.add_argument(
        "--lanes",
        default="grading",
        help="queues to take jobs from: grading, experiments or both, comma-separated "
        "(experiments run one at a time per worker; default: grading)",
    )
    worker.set_defaults(func=cmd_worker)
    validate = sub.add_parser("validate", help="check every lesson, quiz and exercise")
    validate.add_argument("--json", action="store_true")
    validate.add_argument(
        "--no-grade",
        action="store_true",
        help="skip grading the solutions, starters and mistakes (faster while writing)",
    )
    validate.add_argument(
        "--regrade",
        action="store_true",
        help="grade every check, also those that passed before with the same files",
    )
    validate.set_defaults(func=cmd_validate)
    lab = sub.add_parser("experiments", help="run the lab's reference experiments (cached)")
    lab.add_argument("--exercise", default=None, help="one experiment's slug (default: all)")
    lab.set_defaults(func=cmd_experiments)
    grade = sub.add_parser("grade", help="grade a file as the web app would")
    grade.add_argument("exercise")
    grade.add_argument("file")
    grade.add_argument("--framework", choices=["numpy", "torch", "jax"])
    grade.add_argument("--mode", choices=["submit", "run"], default="submit")
    grade.add_argument("--json", action="store_true")
    grade.add_argument("--course", default=None, help="the course's slug (default: the first)")
    grade.set_defaults(func=cmd_grade)
    measure.add_parsers(sub)
    users = sub.add_parser("users", help="manage accounts")
    users_sub = users.add_subparsers(dest="users_command", required=True)
    create = users_sub.add_parser("create", help="create an account (idempotent)")
    create.add_argument("--email", required=True)
    create.add_argument("--password", required=True)
    create.add_argument("--role", choices=[r.value for r in Role], default="student")
    create.add_argument("--name")
    token = users_sub.add_parser("token", help="print a bearer token for an account")
    token.add_argument("--email", required=True)
    users.set_defaults(func=cmd_users, needs_database=True)
    lti.add_parser(sub)
    courses.add_parser(sub)
    offerings.add_parser(sub)
    stats.add_parser(sub)
    new = sub.add_parser("new", help="scaffold a draft exercise or lesson")
    new.add_argument("kind", choices=["exercise", "lesson"])
    new.add_argument("slug", help="permanent id, e.g. rope-angles")
    new.add_argument("--title", help="title (default: from the slug)")
    new.add_argument(
        "--frameworks", default="numpy", help="exercise only: comma-separated, default first"
    )
    new.set_defaults(func=cmd_new)
    schemas = sub.add_parser("schemas", help="write JSON Schemas of the content files")
    schemas.add_argument("--out", default=str(ROOT / "docs" / "json-schemas"))
    schemas.set_defaults(func=cmd_schemas)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Parse arguments and run one command; configuration errors become one clear line."""
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    args = build_parser().parse_args(argv)
    try:
        get_settings()
    except ValidationError as exc:
        return _fail("; ".join(str(e["msg"]).removeprefix("Value error, ") for e in exc.errors()))
    from app.db import DataDirError, ensure_data_dir
    from app.wiring import wire

    wire()  # a command (`worker`, `users create`, ...) records grades and creates accounts too

    try:
        # Commands that use the database say so (`needs_database`): a fresh install then gets
        # one sentence naming `migrate`, never a traceback about a missing table.
        if getattr(args, "needs_database", False):
            from app.migrate import schema_problem

            ensure_data_dir()
            problem = schema_problem()
            if problem:
                return _fail(problem)
        result: int = args.func(args)
    except DataDirError as exc:
        return _fail(str(exc))
    return result
