"""Installed library versions, read once per process: cache keys name them.

Why: each read scans package metadata (about 2 ms); a grader's start keyed every exercise's
outputs and cache parts by four or five of them, 44 scans for one course (issue 54). An upgrade
takes a restart anyway.
"""

from __future__ import annotations

import functools
from importlib import metadata


@functools.cache
def library_version(name: str) -> str:
    """The installed version of `name`, or "missing"."""
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "missing"
