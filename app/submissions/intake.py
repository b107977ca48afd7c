"""Taking in a submission: per-account rate limit and one attempt per click (idempotency keys).

Both stores live in this process, like the login limiter; the scale-out mode can swap in a shared
store behind the same two small classes.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from fastapi import Request
from sqlalchemy.orm import Session

from app.config import get_settings
from app.content.loader import Course
from app.courses.service import graded_in
from app.offerings.place import Place
from app.submissions import service
from app.submissions.models import Submission
from app.users.models import User

RATE_WINDOW_SECONDS = 60.0
REPEAT_WINDOW_SECONDS = 30.0
MAX_KEY_CHARS = 100
MAX_ENTRIES = 50_000


class RateLimiter:
    """Sliding window: at most `limit` hits per key in `window` seconds."""

    def __init__(
        self, *, limit: int, window: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.limit = limit
        self.window = window
        self._clock = clock
        self._hits: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def hit(self, key: str) -> float:
        """Count one hit and return 0, or return the seconds to wait (nothing counted)."""
        now = self._clock()
        with self._lock:
            if len(self._hits) > MAX_ENTRIES:
                self._prune(now)
            times = self._hits.setdefault(key, deque())
            while times and times[0] <= now - self.window:
                times.popleft()
            if len(times) >= self.limit:
                return times[0] + self.window - now
            times.append(now)
            return 0.0

    def undo(self, key: str) -> None:
        """Take back the latest hit (the request was refused for another reason)."""
        with self._lock:
            times = self._hits.get(key)
            if times:
                times.pop()

    def _prune(self, now: float) -> None:
        for key in list(self._hits):
            times = self._hits[key]
            if not times or times[-1] <= now - self.window:
                del self._hits[key]


class TooMany(service.SubmissionError):
    """429: this account sent too many runs and submissions in the last minute."""

    def __init__(self, retry_after: int, message: str) -> None:
        super().__init__(429, message, headers={"retry-after": str(retry_after)})
        self.retry_after = retry_after


@dataclass
class _Seen:
    submission_id: int
    fingerprint: str
    at: float


class RepeatGuard:
    """Remembers (account, click key) -> submission for a short time, so a repeat is not new."""

    def __init__(
        self, *, window: float = REPEAT_WINDOW_SECONDS, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.window = window
        self._clock = clock
        self._seen: dict[tuple[int, str], _Seen] = {}
        self.lock = threading.Lock()  # held across look-up and creation of keyed submissions

    def find(self, user_id: int, key: str, fingerprint: str) -> int | None:
        """The submission made for this key with the same content, if recent enough."""
        seen = self._seen.get((user_id, key))
        if seen is None or seen.fingerprint != fingerprint:
            return None
        if self._clock() - seen.at > self.window:
            return None
        return seen.submission_id

    def remember(self, user_id: int, key: str, fingerprint: str, submission_id: int) -> None:
        """Record the submission this key produced."""
        now = self._clock()
        if len(self._seen) > MAX_ENTRIES:
            for old in [k for k, v in self._seen.items() if now - v.at > self.window]:
                del self._seen[old]
        self._seen[(user_id, key)] = _Seen(submission_id, fingerprint, now)


def new_guards() -> tuple[RateLimiter, RepeatGuard]:
    """The submission rate limit and repeat guard of one app, built once by `create_app`."""
    limit = RateLimiter(limit=get_settings().submissions_per_minute, window=RATE_WINDOW_SECONDS)
    return limit, RepeatGuard()


def _state(request: Request) -> tuple[RateLimiter, RepeatGuard]:
    state = request.app.state
    return state.submission_limiter, state.submission_repeats


def fingerprint(exercise: str, framework: str | None, mode: str, code: str) -> str:
    """What makes two requests with one key the same request."""
    raw = "\x00".join([exercise, framework or "", mode, code])
    return hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True)
class Accepted:
    """The stored submission, and whether it was an earlier one returned for a repeat."""

    row: Submission
    repeated: bool


def accept(
    *,
    request: Request,
    session: Session,
    course: Course,
    user: User,
    exercise: str,
    code: str,
    framework: str | None,
    mode: str,
    key: str | None,
    course_slug: str | None = None,
    place: Place | None = None,
) -> Accepted:
    """Validate, limit and store; a repeat of a recent key returns the earlier submission.

    The caller queues the job for a new row. Raises service.SubmissionError (404, 413, 422, 429).
    """
    limiter, guard = _state(request)
    where = graded_in(request, course_slug)  # (course slug, content version)
    key = (key or "").strip()[:MAX_KEY_CHARS] or None
    if key is None:
        row = _create(limiter, session, course, user, exercise, code, framework, mode, where, place)
        return Accepted(row, False)
    print_ = fingerprint(f"{where[0]}/{exercise}", framework, mode, code)
    with guard.lock:
        earlier = guard.find(user.id, key, print_)
        if earlier is not None:
            found = service.visible_submission(session=session, user=user, submission_id=earlier)
            if found is not None:
                return Accepted(found, True)
        row = _create(limiter, session, course, user, exercise, code, framework, mode, where, place)
        guard.remember(user.id, key, print_, row.id)
        return Accepted(row, False)


def _create(
    limiter: RateLimiter,
    session: Session,
    course: Course,
    user: User,
    exercise: str,
    code: str,
    framework: str | None,
    mode: str,
    where: tuple[str, str | None],
    place: Place | None,
) -> Submission:
    rate_key = f"user:{user.id}"
    wait = limiter.hit(rate_key)
    if wait > 0:
        seconds = max(1, int(wait + 0.999))
        raise TooMany(
            seconds,
            f"You have sent {limiter.limit} runs and submissions in the last minute, the most "
            f"allowed. Wait {seconds} seconds, then try again; your code is still here.",
        )
    try:
        return service.create_submission(
            session=session,
            course=course,
            user=user,
            exercise=exercise,
            code=code,
            framework=framework,
            mode=mode,
            max_bytes=get_settings().max_code_bytes,
            place=place,
            course_slug=where[0],
            content_version=where[1],
        )
    except Exception:
        # Refused, or not stored (the database or the disk was away): nothing was taken in,
        # so it does not count; else a class would get 429 for a minute after an outage.
        limiter.undo(rate_key)
        raise
