"""Every entry point wires the domains alike: the web app, the command line and its worker."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app import cli, hooks
from app.assessments import clock as assessment_clock
from app.assessments import links as assessment_links
from app.assessments import locks as assessment_locks
from app.assessments import scoring as assessment_scoring
from app.authoring import check_job, run_job
from app.db import session_factory
from app.instructor import regrade
from app.jobkinds import wire_kinds
from app.lti import grades as lti_grades
from app.lti import outbox
from app.main import create_app
from app.offerings import service as offerings
from app.offerings.mine import membership_rows
from app.offerings.models import OfferingRole
from app.users.service import get_user_by_email
from app.wiring import wire


@dataclass
class Registries:
    """This test's own (empty) plug lists; the process's own come back afterwards."""

    plugs: dict[str, list[Any]]
    keyed: dict[str, dict[str, Any]]

    def wired(self) -> bool:
        """Whether everything `wire` plugs in is plugged, once and in order."""
        return self.plugs == {
            "grade_recorded": [
                outbox.post_recorded_grade,
                assessment_scoring.settle_recorded_grade,
            ],
            "account_created": [offerings.join_first_on_creation],
            "locks": [assessment_locks.exam_lock],
            "result_hold": [assessment_locks.result_hold],
            "practice_closed": [assessment_locks.practice_lock],
            "background": [],  # exam hand-in is a typed job now (`hand_in`)
        } and self.keyed == {
            "score_readers": {"assessment": assessment_scoring.released_score},
            "link_kinds": {"assessment": assessment_links.ASSESSMENT_LINKS},
            "job_kinds": {
                "hand_in": assessment_clock.hand_in_work,
                "lms_post": lti_grades.post_due_work,
                "regrade": regrade.regrade_work,
                "check": check_job.check_work,
                "preview_run": run_job.run_work,
            },
            "job_due": {
                "hand_in": assessment_clock.hand_in_due,
                "lms_post": lti_grades.posts_due,
            },
        }


@pytest.fixture
def empty(monkeypatch: pytest.MonkeyPatch) -> Registries:
    """Nothing plugged in, as in a process that has just started."""
    found = Registries(plugs={}, keyed={})
    for point in hooks.declared():
        if isinstance(point, hooks.Registry):
            found.keyed[point.name] = {}
            monkeypatch.setattr(point, "plugs", found.keyed[point.name])
        else:
            found.plugs[point.name] = []
            monkeypatch.setattr(point, "plugs", found.plugs[point.name])
    return found


def test_wiring_twice_registers_each_once(empty: Registries) -> None:
    assert not empty.wired()
    wire()
    wire_kinds()
    wire()  # the web app may start twice in one process
    wire_kinds()
    assert empty.wired()


def test_the_web_app_is_wired_when_built(data_dir: Path, empty: Registries) -> None:
    create_app()  # built, not started: requests and jobs can only come after this
    assert empty.wired()


def test_the_started_web_app_stays_wired(data_dir: Path, empty: Registries) -> None:
    with TestClient(create_app()):
        assert empty.wired()


def test_the_worker_command_is_wired_before_it_runs(
    data_dir: Path, empty: Registries, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["worker"]) == 1  # no REDIS_URL here: it stops at once, already wired
    assert "set REDIS_URL" in capsys.readouterr().err
    assert empty.wired()


def test_a_command_line_command_is_wired(
    data_dir: Path, empty: Registries, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["users", "create", "--email", "ann@example.org", "--password", "correct horse"]
    args += ["--role", "instructor"]  # a student is placed nowhere (issue 46)
    assert cli.main(args) == 0
    assert "created: ann@example.org" in capsys.readouterr().out
    assert empty.wired()
    with session_factory()() as session:  # and the instructor teaches the first offering
        user = get_user_by_email(session=session, email="ann@example.org")
        assert user is not None
        assert [m.role for m in membership_rows(session=session, user_id=user.id)] == [
            OfferingRole.instructor
        ]
