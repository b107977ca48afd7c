"""Assignment and Grade Services: line items, the score to send, the outbox (`lms_post` jobs)."""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode, urlsplit, urlunsplit

from sqlalchemy import ColumnElement, or_, select, update
from sqlalchemy.orm import Session

from app.config import get_settings
from app.courses.service import process_registry
from app.db import database_now
from app.deadlines.rules import Kind, offering_dates
from app.hooks import SCORE_READERS, ScoreReader
from app.lti.http import LmsError, call
from app.lti.links import UNLINKED, unlinked
from app.lti.models import LtiContext, LtiGradePost, LtiLink, LtiPlatform, LtiUser
from app.lti.tokens import (
    SCOPE_LINEITEM,
    SCOPE_LINEITEM_READONLY,
    SCOPE_SCORE,
    access_token,
    forget_tokens,
)
from app.models_base import utcnow
from app.offerings.first import offering_and_legacy
from app.offerings.models import Offering
from app.offerings.service import work_in
from app.progress.models import QuizAttempt
from app.submissions.models import PRACTICE, RubricGrade, Submission

log = logging.getLogger(__name__)
LEASE_SECONDS = 120
LINEITEM_TYPE = "application/vnd.ims.lis.v2.lineitem+json"
LINEITEMS_TYPE = "application/vnd.ims.lis.v2.lineitemcontainer+json"
SCORE_TYPE = "application/vnd.ims.lis.v1.score+json"


def read_scores_of(kind: str, reader: ScoreReader) -> None:
    """Let `reader` give the scores of `kind` items from now on in this process (a plug of
    `hooks.SCORE_READERS`: kinds scored above this code, such as assessments)."""
    SCORE_READERS.plug(kind, reader)


def _content_due(course_slug: str, kind: str, slug: str) -> dt.datetime | None:
    """The item's due date in the course's content (an offering may set its own)."""
    course = process_registry().content(course_slug)
    if course is None:
        return None
    if kind == "exercise":
        exercise = course.exercise(slug)
        return None if exercise is None else exercise.meta.due
    lesson = course.lesson(slug)
    return None if lesson is None else lesson.meta.due


def _graded_lab(course_slug: str, slug: str) -> bool:
    """A lab with a rubric: only a person's grade of its write-up is sent, never its run's."""
    course = process_registry().content(course_slug)
    exercise = None if course is None else course.exercise(slug)
    return (
        exercise is not None
        and exercise.meta.entry.kind == "experiment"
        and exercise.meta.rubric is not None
    )


def score_for(
    *,
    session: Session,
    user_id: int,
    kind: str,
    slug: str,
    policy: str,
    offering_id: int | None = None,
) -> float | None:
    """The 0..1 score to report to an LMS course that feeds `offering_id` (None: the first).

    The best or latest graded submission or quiz attempt sent in that offering (its own
    offering_id says where, not the person's memberships), after the offering's late penalty:
    judged by the gradebook's own `Dates.counted`, so the LMS and the gradebook agree. Other
    kinds ask their registered reader.
    """
    reader = SCORE_READERS.get(kind)
    if reader is not None:
        return reader(
            session=session, user_id=user_id, slug=slug, policy=policy, offering_id=offering_id
        )
    if kind not in ("exercise", "quiz"):
        # Unwired process: keep the post pending rather than send another kind's score.
        raise LmsError(f"no score reader for '{kind}' items is registered in this process")
    here, legacy = offering_and_legacy(session=session, offering_id=offering_id)
    offering = None if here is None else session.get(Offering, here)
    if offering is None:
        return None
    found: list[tuple[float | None, dt.datetime]]
    if kind == "quiz":
        quiz = select(QuizAttempt.score, QuizAttempt.created_at).where(
            QuizAttempt.user_id == user_id,
            QuizAttempt.lesson_slug == slug,
            work_in(QuizAttempt.offering_id, here, legacy=legacy),
        )
        in_order = quiz.order_by(QuizAttempt.created_at, QuizAttempt.id)
        found = [(score, at) for score, at in session.execute(in_order)]
    else:
        graded = select(Submission.score, Submission.created_at).where(
            Submission.user_id == user_id,
            Submission.exercise_slug == slug,
            Submission.mode == "submit",
            Submission.status == "done",
            Submission.purpose == PRACTICE,  # an exam's answer counts in the exam's column
            Submission.score.is_not(None),
            work_in(Submission.offering_id, here, legacy=legacy),
        )
        if _graded_lab(offering.course_slug, slug):  # counts once a person graded it
            graded = graded.where(Submission.id.in_(select(RubricGrade.submission_id)))
        order = (Submission.created_at, Submission.id)
        found = [(score, at) for score, at in session.execute(graded.order_by(*order))]
    if not found:
        return None
    item: tuple[Kind, str] = ("quiz" if kind == "quiz" else "exercise", slug)
    dates = offering_dates(
        session=session,
        offering_id=offering.id,
        content_dues={item: _content_due(offering.course_slug, kind, slug)},
        user_ids=[user_id],
    )
    counted = [dates.counted(user_id, item[0], slug, score, at)[0] for score, at in found]
    return float(max(counted) if policy == "best" else counted[-1])


def _with_path(url: str, suffix: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=parts.path.rstrip("/") + suffix))


def _offered(context: LtiContext) -> set[str] | None:
    """The AGS scopes the course's launches offered (None: not recorded, assume what we need)."""
    return None if context.ags_scopes is None else set(context.ags_scopes.split())


def _not_offered(context: LtiContext, problem: str, scope: str, advice: str) -> LmsError:
    offered = sorted(s.rsplit("/", 1)[-1] for s in _offered(context) or set())
    return LmsError(
        f"The LMS course '{context.title}' {problem}: its launches offer the grade service "
        f"scopes {' and '.join(offered) or 'none'}, not {scope.rsplit('/', 1)[-1]}. {advice}",
        permanent=True,
    )


def ensure_lineitem(
    *,
    session: Session,
    platform: LtiPlatform,
    context: LtiContext,
    link: LtiLink,
    dead: str | None = None,
) -> str:
    """The link's gradebook column: known, found by tag, or created on the platform.

    `dead` is a column the LMS said is gone: it is neither reused nor taken from the list.
    """
    if link.lineitem_url and link.lineitem_url != dead:
        return link.lineitem_url
    if not context.lineitems_url:
        raise LmsError(
            "this LMS course offers no line items service (AGS) to the tool", permanent=True
        )
    offered = _offered(context)
    can_write = offered is None or SCOPE_LINEITEM in offered
    can_read = can_write or SCOPE_LINEITEM_READONLY in (offered or set())
    tag = f"{link.kind}:{link.slug}"
    match: list[dict[str, object]] = []
    if can_read:
        token = access_token(platform, [SCOPE_LINEITEM if can_write else SCOPE_LINEITEM_READONLY])
        sep = "&" if "?" in context.lineitems_url else "?"
        listed = call(
            "GET",
            f"{context.lineitems_url}{sep}{urlencode({'tag': tag})}",
            token=token,
            accept=LINEITEMS_TYPE,
        ).body
        match = [
            i
            for i in listed or []
            if isinstance(i, dict) and i.get("tag") == tag and i.get("id") and i["id"] != dead
        ]
    if match:
        url = str(match[0]["id"])
    elif not can_write:
        raise _not_offered(
            context,
            f"has no gradebook column for {tag} and does not let the tool create one",
            SCOPE_LINEITEM,
            "Add the item again through the LMS's deep linking (which creates its column), or "
            "ask the LMS administrator to let the tool manage gradebook columns.",
        )
    else:
        item: dict[str, object] = {
            "scoreMaximum": 100,
            "label": f"{link.kind.title()}: {link.slug}",
            "tag": tag,
            "resourceId": tag,
        }
        if link.resource_link_id:
            item["resourceLinkId"] = link.resource_link_id
        created = call(
            "POST",
            context.lineitems_url,
            token=access_token(platform, [SCOPE_LINEITEM]),
            json_body=item,
            content_type=LINEITEM_TYPE,
            accept=LINEITEM_TYPE,
        ).body
        if not isinstance(created, dict) or "id" not in created:
            raise LmsError("the LMS created a line item but returned no id")
        url = str(created["id"])
    link.lineitem_url = url
    session.commit()
    return url


def _gone(platform: LtiPlatform, context: LtiContext, lineitem: str) -> bool:
    """Whether the LMS says the line item itself no longer exists (not just its scores URL)."""
    offered = _offered(context)
    if offered is not None and not offered & {SCOPE_LINEITEM, SCOPE_LINEITEM_READONLY}:
        return True  # cannot look; ensure_lineitem then says which scope is missing
    read = SCOPE_LINEITEM if offered is None or SCOPE_LINEITEM in offered else None
    token = access_token(platform, [read or SCOPE_LINEITEM_READONLY])
    try:
        call("GET", lineitem, token=token, accept=LINEITEM_TYPE)
    except LmsError as exc:
        if exc.status == 404:
            return True
        raise
    return False


def _post_score(platform: LtiPlatform, lineitem: str, body: dict[str, object]) -> None:
    call(
        "POST",
        _with_path(lineitem, "/scores"),
        token=access_token(platform, [SCOPE_SCORE]),
        json_body=body,
        content_type=SCORE_TYPE,
    )


def send(*, session: Session, post: LtiGradePost) -> float | None:
    """Post the current score for one outbox row; returns the score sent (None: nothing yet)."""
    link = session.get(LtiLink, post.link_id)
    lti_user = session.get(LtiUser, post.lti_user_id)
    context = session.get(LtiContext, link.context_id) if link else None
    platform = session.get(LtiPlatform, context.platform_id) if context else None
    if link is None or lti_user is None or context is None or platform is None:
        raise LmsError("the link, course or LMS of this grade post was deleted", permanent=True)
    if unlinked(context):
        raise LmsError(UNLINKED, permanent=True)
    score = score_for(
        session=session,
        user_id=lti_user.user_id,
        kind=link.kind,
        slug=link.slug,
        policy=context.score_policy,
        offering_id=context.offering_id,  # the offering this LMS course feeds (None: the first)
    )
    if score is None:
        return None
    offered = _offered(context)
    if offered is not None and SCOPE_SCORE not in offered:
        raise _not_offered(
            context,
            "does not let the tool send scores",
            SCOPE_SCORE,
            "Ask the LMS administrator to let the tool create and update submission results.",
        )
    lineitem = ensure_lineitem(session=session, platform=platform, context=context, link=link)
    body: dict[str, object] = {
        "userId": lti_user.sub,
        "scoreGiven": round(score * 100, 4),
        "scoreMaximum": 100,
        "activityProgress": "Completed",
        "gradingProgress": "FullyGraded",
        "timestamp": utcnow().isoformat(),
    }
    try:
        _post_score(platform, lineitem, body)
    except LmsError as exc:
        if exc.status != 404 or not _gone(platform, context, lineitem):
            raise
        # The column was deleted on the LMS: make it again and send the score there.
        log.warning("line item %s is gone from the LMS; creating it again", lineitem)
        link.lineitem_url = None
        session.commit()
        lineitem = ensure_lineitem(
            session=session, platform=platform, context=context, link=link, dead=lineitem
        )
        _post_score(platform, lineitem, body)
    return score


def _due(now: dt.datetime) -> ColumnElement[bool]:
    """SQL: the post is due (pending and its time came, or sending with a lapsed lease)."""
    beyond = now + dt.timedelta(seconds=2 * LEASE_SECONDS)
    lapsed = or_(LtiGradePost.next_attempt_at <= now, LtiGradePost.next_attempt_at > beyond)
    return or_(
        (LtiGradePost.status == "pending") & (LtiGradePost.next_attempt_at <= now),
        (LtiGradePost.status == "sending") & lapsed,
    )


def _claim(session: Session, now: dt.datetime) -> list[int]:
    """Take due rows (pending, or sending with a lapsed lease after a crash) for this process.

    `now` is the database's clock, shared by every process. A sending row whose lease ends more
    than two lease lengths ahead (one, and as much again for another process's `now` read a
    moment earlier) was stamped by a clock that has since been set back: it is taken too, or its
    grade would wait for as long as the jump. Sending a score twice is harmless (the
    LMS keeps the latest); stranding it is not.
    """
    due_now = _due(now)
    due = session.scalars(
        select(LtiGradePost.id).where(due_now).order_by(LtiGradePost.next_attempt_at).limit(50)
    ).all()
    mine = []
    for post_id in due:
        taken = session.execute(
            update(LtiGradePost)
            .where(LtiGradePost.id == post_id, due_now)
            .values(status="sending", next_attempt_at=now + dt.timedelta(seconds=LEASE_SECONDS))
        )
        if taken.rowcount == 1:  # type: ignore[attr-defined]
            mine.append(post_id)
    session.commit()
    return mine


def process_due(session_maker: Callable[[], Session]) -> int:
    """Send every due grade post once; failures are retried later with doubling delays."""
    settings = get_settings()
    sent = 0
    with session_maker() as session:
        ids = _claim(session, database_now(session))
    for post_id in ids:
        with session_maker() as session:
            post = session.get(LtiGradePost, post_id)
            if post is None:
                continue
            try:
                post.score_sent = send(session=session, post=post)
            except LmsError as exc:
                post.attempts += 1
                post.last_error = str(exc)[:2000]
                if exc.permanent or post.attempts >= settings.lti_max_post_attempts:
                    post.status = "failed"
                    log.error("grade post %s failed for good: %s", post_id, exc)
                else:
                    post.status = "pending"
                    delay = settings.lti_retry_base_seconds * 2 ** (post.attempts - 1)
                    wait = dt.timedelta(seconds=min(delay, 6 * 3600))
                    post.next_attempt_at = database_now(session) + wait
                    log.warning("grade post %s failed (try %s): %s", post_id, post.attempts, exc)
                if "401" in str(exc):
                    forget_tokens()
            else:
                post.status = "sent"
                post.sent_at = utcnow()
                post.last_error = ""
                sent += 1
            session.commit()
    return sent


def posts_due(*, session: Session, now: dt.datetime) -> bool:
    """Whether a grade post is due (`hooks.JOB_DUE` of `lms_post`), by the database's clock."""
    del now  # the outbox keeps the database's time
    found = session.scalar(select(LtiGradePost.id).where(_due(database_now(session))).limit(1))
    return found is not None


def post_due_work(run: Any) -> dict[str, Any]:
    """The `lms_post` job's work (`hooks.JOB_KINDS`): send every due grade post once."""
    return {"sent": process_due(run.session_maker)}
