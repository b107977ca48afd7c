"""`validate`, `experiments`, `new` and `schemas`: an author's tools (docs/authoring.md)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

from app.cli.common import fail as _fail
from app.config import ROOT, get_settings


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


def cmd_validate(args: argparse.Namespace) -> int:
    """Check all content; exit 1 on any problem."""
    from app.authoring.validate import validate_course

    try:
        summary = validate_course(
            grade=not args.no_grade,
            progress=_progress_printer(),
            regrade=args.regrade,
            course_slug=args.course,
        )
    except ValueError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 2
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
    from app.content.lab import format_positions, format_table, lab_folders, reference_runs

    settings = get_settings()
    try:
        folders = lab_folders(settings.exercises_dir, args.exercise)
    except LookupError as exc:
        return _fail(str(exc), 2)
    cache = settings.experiments_cache_path
    for folder in folders:
        results = reference_runs(folder, cache, lambda what: print(what, file=sys.stderr))
        print(format_table(folder.name, results), flush=True)
        print(format_positions(folder, results), flush=True)
    return 0


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


def add_validate(sub: Any) -> None:
    """Register `validate` on the command line's subparsers."""
    validate = sub.add_parser("validate", help="check every lesson, quiz and exercise")
    validate.add_argument("--json", action="store_true")
    validate.add_argument(
        "--course", default=None, help="a course the site serves (default: the first)"
    )
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


def add_experiments(sub: Any) -> None:
    """Register `experiments`."""
    lab = sub.add_parser("experiments", help="run the lab's reference experiments (cached)")
    lab.add_argument("--exercise", default=None, help="one experiment's slug (default: all)")
    lab.set_defaults(func=cmd_experiments)


def add_new(sub: Any) -> None:
    """Register `new`."""
    new = sub.add_parser("new", help="scaffold a draft exercise or lesson")
    new.add_argument("kind", choices=["exercise", "lesson"])
    new.add_argument("slug", help="permanent id, e.g. rope-angles")
    new.add_argument("--title", help="title (default: from the slug)")
    new.add_argument(
        "--frameworks", default="numpy", help="exercise only: comma-separated, default first"
    )
    new.set_defaults(func=cmd_new)


def add_schemas(sub: Any) -> None:
    """Register `schemas`."""
    schemas = sub.add_parser("schemas", help="write JSON Schemas of the content files")
    schemas.add_argument("--out", default=str(ROOT / "docs" / "json-schemas"))
    schemas.set_defaults(func=cmd_schemas)
