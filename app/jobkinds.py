"""The typed jobs whose work lives above `app/wiring.py`'s floor: a regrade, a draft's check
and a preview's run.

Why here: a worker (`python -m app worker`) and the web app both plug every kind in at start-up
(as `wire()` does for the lower floors), so any process that takes jobs can run any kind.
"""

from __future__ import annotations

from app import hooks
from app.authoring import check_job, run_job
from app.instructor import regrade

KINDS: list[tuple[str, hooks.JobWork]] = [
    (regrade.KIND, regrade.regrade_work),
    (check_job.KIND, check_job.check_work),
    (run_job.KIND, run_job.run_work),
]


def wire_kinds() -> None:
    """Plug every upper-floor job kind in; idempotent."""
    for kind, work in KINDS:
        hooks.JOB_KINDS.plug(kind, work)
