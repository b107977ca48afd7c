"""Runs INSIDE the sandbox: what a student is told about an exception their code raised.

Used by harness.py and experiment_harness.py (through harness). It imports only the standard
library: it is bound read-only beside them (graders/host/binds.py).
"""

from __future__ import annotations

import errno
import traceback

REFUSED_HINTS = (
    (
        ("fork", "subprocess", "multiprocessing", "Popen", "spawn", "system("),
        "the grader runs your code as one process: starting another one (os.fork, "
        "subprocess, multiprocessing) is not allowed, but threads are",
    ),
    (
        ("mmap", "memfd", "shared_memory"),
        "memory shared between processes is not available here: use an ordinary NumPy array",
    ),
)


def refusal_hint(exc: BaseException) -> str:
    """Plain words for an operation the job refused (EPERM/ENOSYS; EROFS for /dev/shm)."""
    if not isinstance(exc, OSError) or exc.errno not in (errno.EPERM, errno.ENOSYS, errno.EROFS):
        return ""
    try:
        text = "".join(traceback.format_exception(exc))
    except BaseException:
        return ""
    for words, hint in REFUSED_HINTS:
        if any(word in text for word in words):
            return f": {hint}"
    return ""


def short_traceback(exc: BaseException) -> str:
    """The error as a student reads it: its message, plain words for a refusal, their line."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == "submission.py"]
    where = f" (line {frames[-1].lineno} of your code)" if frames else ""
    try:
        text = str(exc)
    except BaseException:  # a hostile __str__ may raise anything, even SystemExit
        text = "<the error message could not be shown>"
    return f"{text[:500]}{refusal_hint(exc)}{where}"
