"""The grading lifecycle: the grader per process, leases on the submission row, runner, reaper.

The submission row is the truth. A job is only a submission id; whoever runs it first takes a
lease on the row (`leases.claim`), renews it while grading and stores the report with the lease's
fencing token, so a job delivered twice, or re-run after a worker died, ends with one report.
"""
