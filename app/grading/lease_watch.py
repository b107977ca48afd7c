"""Kept for its importers: the lease watch serves every kind of job, so it lives in `app/jobs`."""

from app.jobs.lease_watch import Lease, LeaseWatch

__all__ = ["Lease", "LeaseWatch"]
