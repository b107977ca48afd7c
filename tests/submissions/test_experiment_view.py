"""An experiment's submission view: live progress while it trains, metrics once it is done."""

from __future__ import annotations

import datetime as dt

import pytest

from app.jobs import live
from app.submissions.models import Submission
from app.submissions.presenter import STUDENT, submission_json
from graders.lab.experiments import StopRequested

GRADED = {"verdict": "accepted", "score": 1.0, "message": "", "duration_ms": 1.0, "tests": []}


def _row(status: str, report: dict[str, object] | None = None) -> Submission:
    return Submission(
        id=4242,
        user_id=1,
        exercise_slug="lab-learned-vs-sinusoidal",
        framework="torch",
        mode="submit",
        code="",
        status=status,
        report=report,
        created_at=dt.datetime(2026, 1, 1, tzinfo=dt.UTC),
        late=False,
    )


def test_progress_shows_while_running_and_goes_when_done() -> None:
    live.recorder(4242)({"step": 120, "steps": 400, "loss": 1.25})
    try:
        view = submission_json(_row("running"), viewer=STUDENT)
        assert view["progress"] == {"step": 120, "steps": 400, "loss": 1.25}
        assert "progress" not in submission_json(_row("done"), viewer=STUDENT)
    finally:
        live.clear(4242)
    assert "progress" not in submission_json(_row("running"), viewer=STUDENT)
    assert live.latest(4242) is None


def test_metrics_of_a_finished_experiment_reach_the_view() -> None:
    metrics = {
        "train_length": 16,
        "accuracy_by_length": {"16": 1.0, "24": None},
        "loss": [2.3, 0.1],
    }
    view = submission_json(_row("done", {**GRADED, "metrics": metrics}), viewer=STUDENT)
    assert view["metrics"] == metrics
    assert "metrics" not in submission_json(_row("done", GRADED), viewer=STUDENT)


def test_a_requested_stop_raises_at_the_next_progress_frame() -> None:
    record = live.recorder(4243)
    record({"step": 10, "steps": 400, "loss": 2.0})
    live.request_stop(4243)
    try:
        assert live.stop_requested(4243)
        with pytest.raises(StopRequested):
            record({"step": 20, "steps": 400, "loss": 1.9})
    finally:
        live.clear(4243)
    assert not live.stop_requested(4243)
