"""Start-up wiring: which domain plugs into which extension point (`app/hooks.py`), as a table.

Why: lower floors (accounts, grading, quizzes, submissions, progress) must not import the
offerings, assessments or LMS code that reacts to them; every entry point (the web app, the
command line and its `worker`) calls `wire()` once so each process behaves alike.
"""

from __future__ import annotations

from typing import Any

from app import hooks
from app.assessments import clock as assessment_clock
from app.assessments import links as assessment_links
from app.assessments import loader as assessment_loader
from app.assessments import locks as assessment_locks
from app.assessments import scoring as assessment_scoring
from app.lti import grades as lti_grades
from app.lti import outbox as lti_outbox
from app.offerings import passwords as offering_passwords
from app.offerings import service as offerings

# (extension point, plug), in the order each point calls them: a grade is queued for the LMS
# before the exam attempt it belongs to settles (which queues the exam's own post).
PLUGS: list[tuple[hooks.Hook[Any], Any]] = [
    (hooks.GRADE_RECORDED, lti_outbox.post_recorded_grade),
    (hooks.GRADE_RECORDED, assessment_scoring.settle_recorded_grade),
    (hooks.ACCOUNT_CREATED, offerings.join_first_on_creation),
    (hooks.LINK_REFUSALS, offering_passwords.refuse_link_use),
    (hooks.LOCKS, assessment_locks.exam_lock),
    (hooks.PRACTICE_CLOSED, assessment_locks.practice_lock),
    (hooks.RESULT_HOLD, assessment_locks.result_hold),
    (hooks.COURSE_CHECKS, assessment_loader.course_check),
]
# (keyed extension point, key, value)
REGISTERED: list[tuple[hooks.Registry[Any], str, Any]] = [
    (hooks.SCORE_READERS, assessment_scoring.KIND, assessment_scoring.released_score),
    (hooks.LINK_KINDS, assessment_links.ASSESSMENT_LINKS.kind, assessment_links.ASSESSMENT_LINKS),
    # Typed jobs of the queue (the kinds above this floor are in app/jobkinds.py).
    (hooks.JOB_KINDS, "hand_in", assessment_clock.hand_in_work),
    (hooks.JOB_KINDS, "lms_post", lti_grades.post_due_work),
    (hooks.JOB_DUE, "hand_in", assessment_clock.hand_in_due),
    (hooks.JOB_DUE, "lms_post", lti_grades.posts_due),
]


def wire() -> None:
    """Plug everything in; idempotent (the web app may start twice in a process)."""
    for hook, plug in PLUGS:
        hook.plug(plug)
    for registry, key, value in REGISTERED:
        registry.plug(key, value)
