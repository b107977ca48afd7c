"""What every command prints when it cannot do its work."""

from __future__ import annotations

import sys


def fail(message: str, code: int = 1) -> int:
    """One line on stderr, `error: ...`, and the exit code to return."""
    print(f"error: {message}", file=sys.stderr)
    return code
