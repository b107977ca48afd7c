"""The real PostgreSQL and Redis fixtures, shared with tests/jobs."""

from tests.jobs.conftest import pg_url, redis_space, scale_env

__all__ = ["pg_url", "redis_space", "scale_env"]
