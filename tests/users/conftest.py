"""The real PostgreSQL and Redis fixtures, for the tests of several web processes."""

from tests.jobs.conftest import pg_url, redis_space, scale_env

__all__ = ["pg_url", "redis_space", "scale_env"]
