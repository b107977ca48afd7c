"""`courses list|add|refresh|editor`: the courses a deployment serves, from the command line."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING

from app.cli.common import fail

if TYPE_CHECKING:
    from app.courses.registry import Registry


def _registry() -> Registry:
    """A fresh look at the courses (a folder may have been added since)."""
    from app.courses.service import process_registry, reset_process_registry

    reset_process_registry()
    return process_registry()


def cmd_list(args: argparse.Namespace) -> int:
    """Every course with its folder and content version; the first course first."""
    registry = _registry()
    rows = []
    for entry in registry.entries():
        content = entry.content
        rows.append(
            {
                "slug": entry.slug,
                "title": entry.source.meta.title,
                "folder": str(entry.source.folder),
                "version": entry.version,
                "lessons": len(content.lessons) if content else 0,
                "exercises": len(content.exercises) if content else 0,
                "problems": len(content.problems) if content else 0,
            }
        )
    for row in rows:
        print(
            f"{row['slug']}  {row['version']}  {row['lessons']} lessons, "
            f"{row['exercises']} exercises, {row['problems']} problem(s)  {row['folder']}"
        )
    for problem in registry.problems:
        print(f"not served: {problem}")
    if args.json:
        keys = ("slug", "title", "folder", "version")
        print(json.dumps([{k: row[k] for k in keys} for row in rows]))
    return 0


def cmd_add(args: argparse.Namespace) -> int:
    """Check a course folder and, when it loads without problems, serve it everywhere."""
    from app.content.loader import Problem, load_course
    from app.courses import store
    from app.courses.registry import read_meta
    from app.db import session_factory

    folder = Path(args.folder).resolve()
    if not folder.is_dir():
        return fail(f"no such folder: {folder}", 2)
    meta = read_meta(folder)
    if isinstance(meta, Problem):
        return fail(str(meta), 2)
    registry = _registry()
    known = registry.source(meta.slug)
    if known is not None and known.folder != folder:
        return fail(f"slug '{meta.slug}' is already the course in {known.folder}", 2)
    content = load_course(folder / "lessons", folder / "exercises")
    for problem in content.problems:
        print(f"problem: {problem}")
    if content.problems and not args.force:
        return fail(
            f"{len(content.problems)} problem(s) in {folder}: fix them, or add it anyway "
            f"with --force (the broken files are then left out)",
            1,
        )
    with session_factory()() as session:
        store.add_folder(session, slug=meta.slug, folder=folder)
    print(
        f"added {meta.slug} ({meta.title}): {len(content.lessons)} lessons, "
        f"{len(content.exercises)} exercises; running servers serve it within seconds"
    )
    return 0


def cmd_refresh(args: argparse.Namespace) -> int:
    """Check courses as they are on disk; when clean, running servers re-read them within
    seconds (each refuses a version with problems its served version does not have)."""
    from app.courses import store
    from app.courses.registry import load_source
    from app.db import session_factory

    registry = _registry()
    if args.slug and registry.source(args.slug) is None:
        return fail(f"unknown course '{args.slug}'; known: {', '.join(registry.slugs())}", 2)
    refused = 0
    with session_factory()() as session:
        for slug in [args.slug] if args.slug else registry.slugs():
            source = registry.source(slug)
            assert source is not None
            content, version = load_source(source)
            for problem in content.problems:
                print(f"{slug}: problem: {problem}")
            if content.problems and not args.force:
                refused += 1
                print(
                    f"{slug}: version {version} has {len(content.problems)} problem(s); not "
                    f"refreshed: the last good version keeps serving (--force to ask anyway)."
                )
                continue
            store.request_refresh(session, slug=slug)
            print(f"{slug}: version {version} checked; running servers serve it within seconds.")
    return 1 if refused else 0


def cmd_editor(args: argparse.Namespace) -> int:
    """Grant or take away the course editor role (what site administrators do on the API)."""
    from app.authoring import editors
    from app.db import session_factory
    from app.errors import DomainError

    registry = _registry()
    if registry.source(args.slug) is None:
        return fail(f"unknown course '{args.slug}'; known: {', '.join(registry.slugs())}", 2)
    with session_factory()() as session:
        try:
            if args.editor_command == "add":
                editors.grant(session=session, course_slug=args.slug, email=args.email, by=None)
                print(f"{args.email} is now an editor of {args.slug}.")
                return 0
            if not editors.revoke(session=session, course_slug=args.slug, email=args.email):
                return fail(f"{args.email} is not an editor of {args.slug}.", 1)
        except DomainError as exc:
            return fail(exc.message, 2)
    print(f"{args.email} is no longer an editor of {args.slug}.")
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """The `courses` command and its sub-commands."""
    courses = sub.add_parser("courses", help="list, add and refresh the courses served")
    courses_sub = courses.add_subparsers(dest="courses_command", required=True)
    listing = courses_sub.add_parser("list", help="every course, its folder and content version")
    listing.add_argument("--json", action="store_true", help="last line: a JSON list")
    listing.set_defaults(func=cmd_list, needs_database=True)
    add = courses_sub.add_parser("add", help="serve a course folder (with a course.yaml)")
    add.add_argument("folder")
    add.add_argument("--force", action="store_true", help="add it despite broken files")
    add.set_defaults(func=cmd_add, needs_database=True)
    refresh = courses_sub.add_parser("refresh", help="re-read a course (default: every course)")
    refresh.add_argument("slug", nargs="?", default=None)
    refresh.add_argument("--force", action="store_true", help="ask servers despite problems")
    refresh.set_defaults(func=cmd_refresh, needs_database=True)
    editor = courses_sub.add_parser("editor", help="who may author a course in the browser")
    editor_sub = editor.add_subparsers(dest="editor_command", required=True)
    for name, words in (("add", "make an account an editor"), ("remove", "take the role away")):
        action = editor_sub.add_parser(name, help=words)
        action.add_argument("slug")
        action.add_argument("email")
        action.set_defaults(func=cmd_editor, needs_database=True)
