"""Computes an exercise's expected outputs in a separate trusted process.

The grader process must never start JAX (or torch) itself: it forks sandboxes, and forking a
process in which JAX has run can deadlock the child. So references run here, and the arrays come
back on stdout as protocol frames.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from graders import lifeline, protocol
from graders.judging.spec import load_spec


def main() -> None:
    """Write one ARRAY (or ERROR) frame per function case, then END."""
    lifeline.die_with_parent()
    spec = load_spec(Path(sys.argv[1]))
    func = spec.reference()
    out = sys.stdout.buffer
    sent = 0
    for case in spec.cases:
        if case.expect_error:
            continue
        try:
            frame = protocol.encode_array(case.index, np.ascontiguousarray(func(**case.inputs)))
        except Exception as exc:
            frame = protocol.encode_error(case.index, type(exc).__name__, str(exc))
        out.write(frame)
        sent += 1
    out.write(protocol.encode_end(sent))
    out.flush()


if __name__ == "__main__":
    main()
