"""The job queue: one interface (embedded threads or Redis + Dramatiq), status and live progress.

A job is only a submission id; the row is the truth. What a job does with its row (leases,
running the grader, recovery) is the grading lifecycle in `app/grading/`.
"""
