"""A hash of a tree of content files, so an unchanged course is recognised without parsing it."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

SKIPPED_DIRS = frozenset({"__pycache__", ".pytest_cache", ".mypy_cache"})


def tree_digest(root: Path, parts: Sequence[str]) -> str:
    """SHA-256 over the relative paths and bytes of the files under ROOT/PART for each part."""
    digest = hashlib.sha256()
    for part in parts:
        top = root / part
        paths = [top] if top.is_file() else sorted(top.rglob("*")) if top.is_dir() else []
        for path in paths:
            rel = path.relative_to(root)
            if not path.is_file() or any(p in SKIPPED_DIRS or p.startswith(".") for p in rel.parts):
                continue
            digest.update(rel.as_posix().encode() + b"\0")
            digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()
