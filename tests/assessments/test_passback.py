"""LMS grade passback of assessment scores: held until their release, then the score is sent."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import select

from app.assessments import service
from app.assessments.models import AssessmentAttempt
from app.content.service import load_from_settings
from app.db import session_factory
from app.lti.grades import score_for
from app.lti.models import LtiContext, LtiGradePost, LtiLink, LtiMember, LtiPlatform, LtiUser
from app.models_base import as_utc
from app.users.models import Role
from app.users.service import create_user
from tests.assessments.test_service import OPENS, Queue, spec


def test_the_score_waits_for_its_release_then_reaches_the_lms(data_dir: object) -> None:
    course = load_from_settings()
    with session_factory()() as session:
        ann, _ = create_user(
            session=session, email="ann@example.org", password="correct horse", role=Role.student
        )
        platform = LtiPlatform(
            issuer="https://lms.example", client_id="c", auth_url="a", token_url="t", jwks_url="j"
        )
        session.add(platform)
        session.flush()
        context = LtiContext(platform_id=platform.id, deployment_id="d", context_id="ctx")
        lti_user = LtiUser(issuer=platform.issuer, sub="s-ann", user_id=ann.id)
        session.add_all([context, lti_user])
        session.flush()
        link = LtiLink(context_id=context.id, kind="assessment", slug="quick")
        session.add_all([link, LtiMember(context_id=context.id, lti_user_id=lti_user.id)])
        session.commit()
        later = dt.datetime(2100, 1, 1, tzinfo=dt.UTC)
        only_questions = spec(release=later, parts=[spec().parts[0].model_dump()])
        attempt = service.start_attempt(
            session=session,
            course=course,
            spec=only_questions,
            user=ann,
            now=OPENS,
            enqueue=Queue(),
        )
        service.finish_attempt(
            session=session,
            course=course,
            attempt=attempt,
            now=OPENS,
            by="student",
            enqueue=Queue(),
        )
        assert attempt.score == 0.0
        [post] = session.scalars(select(LtiGradePost)).all()
        assert post.status == "pending" and as_utc(post.next_attempt_at) == later
        args = {"session": session, "user_id": ann.id, "kind": "assessment", "slug": "quick"}
        assert score_for(**args, policy="best") is None  # not released yet: nothing to send
        row = session.get(AssessmentAttempt, attempt.id)
        assert row is not None
        row.release_at, row.score = dt.datetime(2001, 1, 1, tzinfo=dt.UTC), 0.5
        session.commit()
        assert score_for(**args, policy="best") == 0.5
