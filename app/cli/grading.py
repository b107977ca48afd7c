"""`prepare` and `grade`: what grading needs before a start, and grading one file by hand."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from app.cli.common import fail as _fail


def cmd_prepare(_args: argparse.Namespace) -> int:
    """Build what grading needs before the first start: JAX's cache, known mistakes' outputs.

    For every course the site serves, so no course's first JAX job compiles while a student waits.
    """
    from app.config import get_settings
    from app.courses.registry import discover
    from app.courses.service import extra_dirs
    from app.grading.service import jax_cache_dir, prepare_jax_cache, prepare_mistakes
    from app.migrate import schema_problem

    settings = get_settings()
    # Folders added at run time are listed in the database; before `migrate`, the others still are.
    setting_dirs = [(folder, "setting") for folder in settings.course_dirs]
    extra = extra_dirs("background") if schema_problem() is None else setting_dirs
    sources, _problems = discover(settings.content_dir, extra)
    for source in sources:
        seconds = prepare_jax_cache(exercises_dir=source.exercises_dir)
        count = prepare_mistakes(exercises_dir=source.exercises_dir)
        print(
            f"{source.slug}: JAX compilation cache in {jax_cache_dir()} is up to date "
            f"({seconds:.1f} s); expected outputs and known mistakes of {count} exercises are ready"
        )
    return 0


def cmd_grade(args: argparse.Namespace) -> int:
    """Grade a file exactly as the web app would; exit 0 whatever the verdict."""
    from pathlib import Path

    from app.grading.service import get_grader, shutdown_grader
    from app.submissions.presenter import verdict_label
    from graders import UnknownExercise, UnknownFramework, not_utf8

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
        f"{verdict_label(report.verdict, line=report.line)} (score {report.score:.2f}, "
        f"{report.duration_ms:.0f} ms): {report.message}"
    )
    for test in report.tests:
        mark = "ok  " if test.passed else "FAIL"
        hidden = " (hidden)" if test.hidden else ""
        print(f"  {mark} {test.name}{hidden}: {test.message}")
        if test.misconception:
            print(f"       hint: {test.misconception['hint']}")
    return status


def add_prepare(sub: Any) -> None:
    """Register `prepare` on the command line's subparsers."""
    prepare = sub.add_parser("prepare", help="fill JAX's cache and the known mistakes' outputs")
    prepare.set_defaults(func=cmd_prepare)


def add_grade(sub: Any) -> None:
    """Register `grade`."""
    grade = sub.add_parser("grade", help="grade a file as the web app would")
    grade.add_argument("exercise")
    grade.add_argument("file")
    grade.add_argument("--framework", choices=["numpy", "torch", "jax"])
    grade.add_argument("--mode", choices=["submit", "run"], default="submit")
    grade.add_argument("--json", action="store_true")
    grade.add_argument("--course", default=None, help="the course's slug (default: the first)")
    grade.set_defaults(func=cmd_grade)
