"""`python -m app ...`: the one command line for operators, instructors and scripts."""

# Each domain's commands live in a module of their own here; this one assembles them and runs.

from __future__ import annotations

import argparse
import logging

from pydantic import ValidationError
from sqlalchemy.exc import OperationalError

from app.cli import authoring, courses, grading, lti, measure, offerings, server, stats, users
from app.cli.common import fail as _fail
from app.config import get_settings
from app.web import heap


def build_parser() -> argparse.ArgumentParser:
    """The argument parser, separate so tests can inspect it."""
    parser = argparse.ArgumentParser(prog="python -m app", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    server.add_serve(sub)
    server.add_migrate(sub)
    grading.add_prepare(sub)
    server.add_worker(sub)
    authoring.add_validate(sub)
    authoring.add_experiments(sub)
    grading.add_grade(sub)
    measure.add_parsers(sub)
    users.add_parser(sub)
    lti.add_parser(sub)
    courses.add_parser(sub)
    offerings.add_parser(sub)
    stats.add_parser(sub)
    authoring.add_new(sub)
    authoring.add_schemas(sub)
    return parser


def _wire() -> None:
    """Plug every floor's hooks and job kinds in: a command (`worker`, `users create`, ...)
    records grades, creates accounts and runs jobs too. After the checks, so a `serve` starts
    its grader without waiting for these imports."""
    from app.jobkinds import wire_kinds
    from app.wiring import wire

    wire_kinds()
    wire()


def main(argv: list[str] | None = None) -> int:
    """Parse arguments and run one command; configuration errors become one clear line."""
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    args = build_parser().parse_args(argv)
    try:
        get_settings()
    except ValidationError as exc:
        return _fail("; ".join(str(e["msg"]).removeprefix("Value error, ") for e in exc.errors()))
    from app.db import DataDirError, ensure_data_dir

    try:
        # Commands that start a service wait a bounded time for a database still starting
        # (`waits_for_database`), then give up with one sentence naming the fix.
        if getattr(args, "waits_for_database", False) and not getattr(args, "health", False):
            from app.migrate import wait_for_database

            problem = wait_for_database()
            if problem:
                return _fail(problem)
        # Commands that use the database say so (`needs_database`): a fresh install then gets
        # one sentence naming `migrate`, never a traceback about a missing table.
        if getattr(args, "needs_database", False):
            from app.migrate import schema_problem

            ensure_data_dir()
            problem = schema_problem()
            if problem:
                return _fail(problem)
        ahead = getattr(args, "ahead", None)
        if ahead is not None:  # `serve`: its grader's sandboxes start while the app loads
            ahead(args)
        _wire()
        starts_app = getattr(args, "starts_app", None)
        if starts_app is None or not starts_app(args):
            heap.resume()  # paused for the start (app/__main__.py); an app resumes them itself
        result: int = args.func(args)
    except DataDirError as exc:
        return _fail(str(exc))
    except OperationalError as exc:  # it answered at start, then went away mid-command
        reason = str(exc.orig or exc).strip().splitlines()[0]
        return _fail(
            f"the database stopped answering ({reason}): check that it runs, then run the "
            "command again"
        )
    return result
