"""Grade passback when the LMS changes under the tool: deleted columns, scopes it did not offer."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from app import hooks
from app.db import session_factory
from app.lti import grades
from app.lti.http import LmsError
from app.lti.models import LtiLink
from tests.lti.conftest import INSTRUCTOR, LEARNER, launch
from tests.lti.helpers import (
    EXERCISE,
    _all_sent,
    _graded_submission,
    _posts,
    _settled,
    _user_id,
    _wait,
)
from tests.lti.platform import LINEITEM_READONLY, SCORE, Platform

AGS = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"


def _path(url: str, platform: Platform) -> str:
    return url.removeprefix(platform.url)


def test_a_line_item_deleted_on_the_lms_is_created_again(
    lti_client: TestClient, platform: Platform
) -> None:
    assert launch(lti_client, platform, sub="s-1", roles=[LEARNER], claims=EXERCISE).status_code
    _graded_submission(_user_id("s-1"), 0.75)
    _wait(_all_sent)
    first = platform.lineitems[0]["id"]
    platform.delete_lineitem(first)  # a teacher removes the column in the LMS gradebook
    _graded_submission(_user_id("s-1"), 0.8)
    _wait(lambda: len(platform.scores) == 2 and _all_sent())
    assert len(platform.lineitems) == 1
    again = platform.lineitems[0]
    assert again["id"] != first and again["tag"] == "exercise:alibi-bias"
    assert platform.scores[1]["lineitem"] == _path(again["id"], platform)
    assert platform.scores[1]["scoreGiven"] == 80.0
    with session_factory()() as session:
        assert session.scalars(select(LtiLink.lineitem_url)).one() == again["id"]


def test_only_the_scopes_the_launch_offered_are_requested(
    lti_client: TestClient, platform: Platform
) -> None:
    platform.ags_scopes = [LINEITEM_READONLY, SCORE]
    platform.grantable = {LINEITEM_READONLY, SCORE}
    column = platform.add_lineitem(tag="exercise:alibi-bias", label="Alibi", scoreMaximum=100)
    claims = {**EXERCISE, AGS: {"scope": platform.ags_scopes, "lineitem": column}}
    assert launch(lti_client, platform, sub="s-1", roles=[LEARNER], claims=claims).status_code
    _graded_submission(_user_id("s-1"), 0.75)
    _wait(_all_sent)
    assert platform.scores[0]["lineitem"] == _path(column, platform)
    assert platform.token_requests and all(
        asked <= {LINEITEM_READONLY, SCORE} for asked in platform.token_requests
    )


def test_a_missing_scope_is_explained_to_the_instructor_not_retried_blindly(
    lti_client: TestClient, platform: Platform
) -> None:
    platform.ags_scopes = [LINEITEM_READONLY, SCORE]  # no right to create a gradebook column
    platform.grantable = {LINEITEM_READONLY, SCORE}
    assert launch(lti_client, platform, sub="s-1", roles=[LEARNER], claims=EXERCISE).status_code
    _graded_submission(_user_id("s-1"), 0.75)
    _wait(_settled)
    post = _posts()[0]
    assert post.status == "failed" and post.attempts == 1  # retrying cannot help
    assert "has no gradebook column for exercise:alibi-bias and does not let" in post.last_error
    assert all(asked <= {LINEITEM_READONLY, SCORE} for asked in platform.token_requests)
    launch(lti_client, platform, sub="t-1", roles=[INSTRUCTOR])
    page = lti_client.get("/instructor/lti")
    assert page.status_code == 200
    assert "has no gradebook column for exercise:alibi-bias and does not let" in page.text


def test_a_404_for_a_line_item_that_still_exists_makes_no_second_column(
    lti_client: TestClient, platform: Platform
) -> None:
    assert launch(lti_client, platform, sub="s-1", roles=[LEARNER], claims=EXERCISE).status_code
    _graded_submission(_user_id("s-1"), 0.75)
    _wait(_all_sent)
    platform.fail_scores, platform.fail_status = 2, 404  # a confused LMS, not a deleted column
    _graded_submission(_user_id("s-1"), 0.8)
    _wait(lambda: len(platform.scores) == 2 and _all_sent())
    assert len(platform.lineitems) == 1 and platform.next_lineitem == 2  # none made or lost
    assert platform.scores[1]["lineitem"] == _path(platform.lineitems[0]["id"], platform)


def test_a_kind_no_reader_scores_is_refused_not_scored_as_an_exercise(
    data_dir: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(hooks.SCORE_READERS, "plugs", {})  # a process nobody wired
    with (
        session_factory()() as session,
        pytest.raises(LmsError, match="no score reader for 'assessment' items is registered"),
    ):
        grades.score_for(session=session, user_id=1, kind="assessment", slug="quick", policy="best")
