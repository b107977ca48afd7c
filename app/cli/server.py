"""`serve`, `migrate` and `worker`: running the service and its grading workers."""

from __future__ import annotations

import argparse
import errno
import socket
from typing import Any

from app.cli.common import fail as _fail
from app.config import ROOT, get_settings


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
        from app.web.processes import serve_processes

        return serve_processes(options=options, host=args.host, port=args.port, count=args.workers)
    uvicorn.run(**options, host=args.host, port=args.port)
    return 0


def start_grader_ahead(args: argparse.Namespace) -> None:
    """Once `serve`'s checks passed, before uvicorn imports the app: start its grader, if this
    process grades (the sandboxes start on the other core while the app loads)."""
    settings = get_settings()
    if args.reload or args.workers > 1 or not settings.grades_in_web:
        return
    if settings.pool_warm_on_start and _port_free(args.host, args.port) is None:
        from graders import Health

        health = Health()
        health.begin()  # its sandbox starts while the grader's modules load (0.1 s sooner)
        from app.grading.service import start_grader_early

        start_grader_early(health)


def starts_app_here(args: argparse.Namespace) -> bool:
    """Whether this process loads the app, whose start resumes collections (app/web/heap.py);
    with --reload or --workers the app runs in other processes."""
    return not args.reload and args.workers <= 1


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


def add_serve(sub: Any) -> None:
    """Register `serve` on the command line's subparsers."""
    serve = sub.add_parser("serve", help="serve the web app")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument(
        "--reload", action="store_true", help="restart on code change, reload content live"
    )
    serve.add_argument("--workers", type=int, default=1, help="web processes (scale-out mode only)")
    serve.set_defaults(
        func=cmd_serve,
        needs_database=True,
        waits_for_database=True,
        ahead=start_grader_ahead,
        starts_app=starts_app_here,
    )


def add_migrate(sub: Any) -> None:
    """Register `migrate`."""
    migrate = sub.add_parser("migrate", help="apply database migrations")
    migrate.set_defaults(func=cmd_migrate, waits_for_database=True)


def add_worker(sub: Any) -> None:
    """Register `worker`."""
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
    worker.set_defaults(func=cmd_worker, waits_for_database=True)
