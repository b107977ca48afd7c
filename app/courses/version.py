"""A course's content version: the git commit of its files when clean, else a hash of them.

Why: every submission and quiz attempt stores the version it was graded against, so a later
refresh never silently rewrites history; a version must change whenever the content does.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from app.content.digest import tree_digest
from app.courses.schema import COURSE_FILE

# What a course's content is made of (its homework and exams too: a refresh serves them new).
CONTENT_PARTS = (COURSE_FILE, "lessons", "exercises", "assessments")
GIT_TIMEOUT_S = 10


def files_hash(folder: Path) -> str:
    """SHA-256 over the relative paths and bytes of the course's content files."""
    return tree_digest(folder, CONTENT_PARTS)


def _git(folder: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(folder), *args],
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def git_commit(folder: Path) -> tuple[str, bool] | None:
    """(last commit touching the content, whether the files are unchanged since); None: no git."""
    parts = [p for p in CONTENT_PARTS if (folder / p).exists()]
    if not parts or _git(folder, "rev-parse", "--is-inside-work-tree") != "true":
        return None
    commit = _git(folder, "log", "-1", "--format=%H", "--", *parts)
    if not commit:
        return None  # in a repository but never committed: the files' hash says more
    status = _git(folder, "status", "--porcelain", "--untracked-files=all", "--", *parts)
    return commit, status == ""


def content_version(folder: Path) -> str:
    """`<commit:12>` when clean in git, `<commit:12>+<hash:8>` when edited since, else
    `sha-<hash:12>`."""
    found = git_commit(folder)
    if found is not None and found[1]:
        return found[0][:12]
    hashed = files_hash(folder)
    if found is not None:
        return f"{found[0][:12]}+{hashed[:8]}"
    return f"sha-{hashed[:12]}"
