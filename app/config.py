"""One settings object, read from the environment (and .env), so every part agrees on config."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

DEV_SECRET_KEY = "dev-insecure-secret-key-change-me"  # noqa: S105 - refused in production
ROOT = Path(__file__).resolve().parent.parent


class Settings(BaseSettings):
    """Platform configuration; the defaults are the embedded single-machine mode."""

    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    app_env: Literal["development", "production", "test"] = Field(
        default="development", description="production refuses development secrets."
    )
    password_hash_cost: Literal["standard", "low"] = Field(
        default="standard",
        description=(
            "argon2's work for each new password hash: standard (3 passes over 64 MiB), or low "
            "(1 pass over 1 MiB) for test suites that create thousands of accounts; production "
            "refuses low. Stored hashes carry their own cost, so either setting checks both."
        ),
    )
    app_data_dir: Path = Field(
        default=Path("./var"), description="Where the SQLite database, logs and caches live."
    )
    jax_cache_dir: Path | None = Field(
        default=None,
        description=(
            "JAX compilation cache filled by trusted runs (`python -m app prepare`, part of "
            "`make run`); default var/jax-cache in the checkout, shared by every data dir."
        ),
    )
    mistakes_cache_dir: Path | None = Field(
        default=None,
        description=(
            "Expected and known mistakes' outputs keyed by content (`python -m app prepare`); "
            "default var/mistakes-cache in the checkout, shared by every data dir."
        ),
    )
    experiments_cache_dir: Path | None = Field(
        default=None,
        description="The lab's reference experiments (`python -m app experiments`); default "
        "experiments-cache in app_data_dir.",
    )
    template_cache_dir: Path | None = Field(
        default=None,
        description="The pages' templates compiled, so a restart does not compile them again; "
        "default template-cache in app_data_dir.",
    )
    render_cache_dir: Path | None = Field(
        default=None, description="Rendered lessons and hints a restart reads (rendered-content)."
    )
    validate_cache_dir: Path | None = Field(
        default=None,
        description="Grading checks `validate` saw pass, so a rerun grades only what changed; "
        "default validate-cache in app_data_dir.",
    )
    session_cache: bool = Field(
        default=True,
        description="Each web process remembers a session's user for a few seconds (no query "
        "per page); with REDIS_URL a change anywhere reaches every web process at once, "
        "without it a change from another process (a CLI command) shows within those seconds.",
    )
    database_url: str | None = Field(
        default=None, description="SQLAlchemy URL; default is a SQLite file in app_data_dir."
    )
    redis_url: str | None = Field(
        default=None, description="Unset: embedded queue. redis://...: distributed queue."
    )
    secret_key: str = Field(default=DEV_SECRET_KEY, description="Signs sessions and tokens.")
    content_dir: Path = Field(default=ROOT, description="Folder holding lessons/ and exercises/.")
    first_course_slug: str | None = Field(
        default=None,
        description="The first course's slug while CONTENT_DIR has no readable course.yaml "
        "(default: the folder's name as a slug); its course.yaml's slug otherwise.",
    )
    course_dirs: list[Path] = Field(
        default_factory=list,
        description=(
            "Further course folders (each with a course.yaml), served after the first course "
            'and those under its courses/ folder, e.g. ["/srv/courses/rnns"].'
        ),
    )
    course_poll_seconds: float = Field(
        default=5.0,
        ge=0,
        description=(
            "How often a web process looks for courses added and refreshes asked for by "
            "`courses add|refresh` or another process's admin page; 0: never."
        ),
    )
    max_code_bytes: int = Field(default=64 * 1024, description="Largest accepted submission.")
    pool_sizes: dict[str, int] = Field(
        default_factory=lambda: {"numpy": 2, "torch": 1, "jax": 1},
        description="Warm sandboxed interpreters kept ready per framework.",
    )
    pool_fork: list[str] = Field(
        default_factory=lambda: ["numpy", "torch", "jax"],
        description=(
            "Frameworks whose pool entries are fork servers: one sandbox imports once and forks "
            "one child per job (JAX: forks before its backend starts; each child warms up "
            "ahead of its job). Left out: a fresh sandbox per job."
        ),
    )
    pool_fork_max_jobs: int = Field(
        default=500, ge=1, description="Jobs a fork server takes before it is replaced."
    )
    pool_jax_own_client: bool = Field(
        default=False,
        description=(
            "Prototype, off: a JAX exercise's jobs each run in a child that started a JAX "
            "client of its own and warmed up after the previous job (no reset at a new "
            "compilation; far slower back to back: docs/jax-fork-reset.md)."
        ),
    )
    grading_workers: int = Field(default=4, ge=1, description="Jobs graded at once per process.")
    sse_stream_seconds: float = Field(
        default=30.0,
        gt=0,
        description=(
            "A live status stream ends after this long and the browser reconnects, so a web "
            "restart never waits longer for open streams."
        ),
    )
    # The web tier under a class arriving at once (issue 23): docs/operations.md "Capacity".
    web_threads: int = Field(
        default=4,
        ge=1,
        description=(
            "Threads that run request handlers at once in one web process. Python runs one "
            "at a time, and a handler waits only for short database reads, so a few keep the "
            "process busy; more only switch (scale-out, 1,000 students: 4 threads about 750 "
            "pages/s, 16 about 620)."
        ),
    )
    web_db_connections: int = Field(
        default=24,
        ge=1,
        description=(
            "Database connections for requests in one web process: the threads, plus the "
            "live streams' short reads and sessions closing."
        ),
    )
    web_db_wait_seconds: float = Field(
        default=10.0, gt=0, description="A request waits this long for a connection, then 503."
    )
    background_db_connections: int = Field(
        default=10,
        ge=1,
        description=(
            "Connections for grading, the reaper and the LMS grade outbox, a pool of their "
            "own so page loads never starve a verdict."
        ),
    )
    web_slots: int = Field(
        default=24,
        ge=1,
        description=(
            "Requests served at once in one web process; the rest wait in line in the event "
            "loop, holding no thread and no connection."
        ),
    )
    web_queue_seconds: float = Field(
        default=10.0,
        gt=0,
        description="How long a request may wait in line before it gets 503 with Retry-After.",
    )
    web_queue_max: int = Field(
        default=5000,
        ge=0,
        description="Requests allowed to wait in line; beyond that, 503 at once.",
    )
    web_retry_after_seconds: int = Field(
        default=5, ge=1, description="The Retry-After of a 503 sent when the server is full."
    )
    web_access_log: bool = Field(
        default=False,
        description=(
            "Print a line per request (uvicorn's access log). Off by default: it cost about "
            "8% of a page's time under a class's load; /metrics counts requests either way."
        ),
    )
    new_accounts_join_first_offering: bool = Field(
        default=True,
        description=(
            "An account made by `users create --role instructor` teaches the first offering; "
            "nobody else is placed anywhere (a student joins an open offering by working in "
            "it, a closed one by code, roster or LMS). Off: instructors are enrolled by hand."
        ),
    )
    pool_warm_on_start: bool = Field(
        default=True, description="Start the warm pool when the app starts (off in unit tests)."
    )
    sandbox_memory_mb: int = Field(default=2048, description="Memory cap per grading sandbox.")
    session_days: int = Field(
        default=14, ge=1, le=365, description="How long a browser login lasts, in days."
    )
    auth_max_failures: int = Field(
        default=10, ge=1, description="Failed logins or sign-ups allowed per IP and per email."
    )
    auth_window_seconds: int = Field(
        default=300, ge=1, description="Window over which auth_max_failures is counted."
    )
    password_link_hours: int = Field(
        default=72,
        ge=1,
        le=24 * 30,
        description="How long a set-password link (roster accounts, resets) works, in hours.",
    )
    submissions_per_minute: int = Field(
        default=30, ge=1, description="Runs and submits one account may send per minute."
    )
    database_wait_seconds: float = Field(
        default=30.0,
        ge=0,
        description=(
            "How long `serve`, `migrate` and `worker` wait at start for a database server that "
            "does not answer yet (it may be starting too) before giving up with one sentence."
        ),
    )
    # Scale-out (issue 7): how jobs are queued, leased and recovered.
    serve_grades: bool | None = Field(
        default=None,
        description="Whether `serve` also grades; unset: yes without REDIS_URL, no with it.",
    )
    lease_seconds: int = Field(
        default=10,
        ge=2,
        description=(
            "A running job's lease, renewed every third of it; a dead worker's job reruns after it."
        ),
    )
    reaper_interval_seconds: float = Field(
        default=2.0, gt=0, description="How often expired leases and lost jobs are looked for."
    )
    max_job_attempts: int = Field(
        default=3, ge=1, description="Runs of one job before it ends as internal_error."
    )
    redis_prefix: str = Field(
        default="course",
        pattern=r"^[A-Za-z0-9_.-]{1,64}$",
        description="Prefix of every Redis key and channel, so deployments can share a Redis.",
    )
    log_format: Literal["text", "json"] = Field(
        default="text", description="json: one JSON object per log line, with the submission id."
    )

    # LTI 1.3 (issue 16): launches from an LMS, grade passback, rosters.
    lti_frame_ancestors: list[str] = Field(
        default_factory=list,
        description=(
            "Origins of LMSs allowed to show the course in an iframe, e.g. "
            '["https://canvas.example.edu"]; empty: no site may frame it.'
        ),
    )
    lti_outbox_worker: bool = Field(
        default=True,
        description="Queue `lms_post` jobs that post due grades to LMSs (run by the workers).",
    )
    lti_outbox_interval_seconds: float = Field(
        default=5.0, gt=0, description="How often the grade outbox is looked at."
    )
    lti_max_post_attempts: int = Field(
        default=8, ge=1, description="Tries of one grade post before it is marked failed."
    )
    lti_retry_base_seconds: float = Field(
        default=30.0, gt=0, description="First retry delay of a grade post; doubles each time."
    )
    lti_trust_institution_roles: bool = Field(
        default=False,
        description=(
            "Let institution roles (an LMS's Instructor, Faculty or Administrator of the whole "
            "school) make someone an instructor here. Off: only roles in the launching course "
            "count, so a student who teaches elsewhere stays a student in this course."
        ),
    )
    lti_http_timeout_seconds: float = Field(
        default=10.0, gt=0, description="Timeout of each call to an LMS (JWKS, token, AGS)."
    )
    lti_key_rotation_days: float = Field(
        default=2.0,
        ge=0,
        description=(
            "After `lti rotate-key` publishes the next key, how long the current key keeps "
            "signing (so LMSs that cache the tool's key set, often for up to a day, fetch the "
            "new one first); also how long a retired key stays published afterwards."
        ),
    )

    # E-mail (issue 49): roster invitations and set-password links. Unset host: links are shown
    # to copy instead. docs/operations.md "E-mail".
    smtp_host: str | None = Field(
        default=None, description="SMTP server for invitations and password links; unset: none."
    )
    smtp_port: int = Field(default=587, ge=1, le=65535, description="The SMTP server's port.")
    smtp_sender: str = Field(
        default="", description='The From address, e.g. "Course <course@school.edu>".'
    )
    smtp_starttls: bool = Field(
        default=False, description="Upgrade the connection with STARTTLS before logging in."
    )
    smtp_username: str | None = Field(default=None, description="SMTP login, if it needs one.")
    smtp_password: str | None = Field(default=None, description="SMTP password for that login.")
    smtp_timeout_seconds: float = Field(
        default=10.0, gt=0, description="How long one SMTP conversation may take."
    )

    @model_validator(mode="after")
    def _refuse_dev_secret_in_production(self) -> Settings:
        if self.app_env == "production" and self.secret_key == DEV_SECRET_KEY:
            raise ValueError(
                "SECRET_KEY is still the development default; set SECRET_KEY to a long random "
                "value before running with APP_ENV=production"
            )
        if self.app_env == "production" and len(self.secret_key) < 32:
            raise ValueError("SECRET_KEY must be at least 32 characters in production")
        if self.app_env == "production" and self.password_hash_cost == "low":  # noqa: S105
            raise ValueError("PASSWORD_HASH_COST=low is for test suites; unset it in production")
        return self

    @property
    def distributed(self) -> bool:
        """Jobs go through Redis to `worker` processes (REDIS_URL is set)."""
        return self.redis_url is not None

    @property
    def grades_in_web(self) -> bool:
        """Whether the web process runs graders: always when embedded, on request otherwise."""
        return self.serve_grades if self.serve_grades is not None else not self.distributed

    @property
    def sqlalchemy_url(self) -> str:
        """The database URL with the driver SQLAlchemy should use."""
        if self.database_url is None:
            return f"sqlite:///{(self.app_data_dir / 'app.db').resolve()}"
        url = self.database_url
        for prefix in ("postgresql://", "postgres://"):
            if url.startswith(prefix):
                return "postgresql+psycopg://" + url[len(prefix) :]
        return url

    @property
    def lti_key_dir(self) -> Path:
        """Where the tool's private keys live: in the data dir, never in the repository."""
        return self.app_data_dir / "lti"

    @property
    def jax_cache_path(self) -> Path:
        """JAX's compilation cache: one per checkout (trusted runs fill it), not per data dir."""
        return (self.jax_cache_dir or ROOT / "var" / "jax-cache").resolve()

    @property
    def mistakes_cache_path(self) -> Path:
        """The known mistakes' outputs: keyed by content, so shared like JAX's cache."""
        return (self.mistakes_cache_dir or ROOT / "var" / "mistakes-cache").resolve()

    @property
    def experiments_cache_path(self) -> Path:
        """The lab's reference runs: per data dir, beside the submissions they are drawn with."""
        return self.experiments_cache_dir or self.app_data_dir / "experiments-cache"

    @property
    def template_cache_path(self) -> Path:
        """Compiled templates: per data dir, the one place a deployment surely may write."""
        return self.template_cache_dir or self.app_data_dir / "template-cache"

    @property
    def render_cache_path(self) -> Path:
        """Rendered content: per data dir, beside the compiled templates."""
        return self.render_cache_dir or self.app_data_dir / "rendered-content"

    @property
    def validate_cache_path(self) -> Path:
        """Checks `validate` saw pass: per data dir, so a fresh one grades everything."""
        return self.validate_cache_dir or self.app_data_dir / "validate-cache"

    @property
    def lessons_dir(self) -> Path:
        """Folder of lesson markdown files."""
        return self.content_dir / "lessons"

    @property
    def exercises_dir(self) -> Path:
        """Folder of exercise folders."""
        return self.content_dir / "exercises"


@lru_cache
def get_settings() -> Settings:
    """Settings are read once per process; tests clear this cache to change them."""
    return Settings()
