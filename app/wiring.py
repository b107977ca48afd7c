"""Start-up wiring: the domains that follow lower ones' events, lock, score or link for them.

Why: lower floors (accounts, grading, quizzes, submissions, progress) must not import the
offerings, assessments or LMS code that reacts to them; every entry point (the web app, the
command line and its `worker`) calls `wire()` once so each process behaves alike.
"""

from __future__ import annotations

from app.assessments import clock as assessment_clock
from app.assessments import links as assessment_links
from app.assessments import locks as assessment_locks
from app.assessments import scoring as assessment_scoring
from app.lti import outbox as lti_outbox
from app.offerings import service as offerings


def wire() -> None:
    """Subscribe and register everything; idempotent (the web app may start twice in a process).

    Order matters as it did when these were direct calls: a grade is queued for the LMS before
    an exam attempt it belongs to is settled.
    """
    lti_outbox.subscribe()  # recorded grades go to the LMS outbox, in their transaction
    assessment_scoring.subscribe()  # exam scores settle when graded; released scores for LMSs
    assessment_locks.subscribe()  # a running exam closes its exercises' hints and hidden tests
    assessment_clock.subscribe()  # the background pass hands in overdue attempts
    assessment_links.register()  # LMS deep linking offers assessments; their links launch
    offerings.subscribe()  # a new account joins the first offering
