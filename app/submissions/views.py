"""A student's own practice submissions as list entries; reports are presented by presenter.py.

An assessment's answers are not listed here: the attempt's own page shows them, with its score.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.models_base import as_utc
from app.submissions.models import PRACTICE, Submission

FRAMEWORK_LABELS = {"numpy": "NumPy", "torch": "PyTorch", "jax": "JAX / Flax"}
MAX_LISTED = 200


def list_own(
    *, session: Session, user_id: int, exercise: str | None, limit: int
) -> list[dict[str, Any]]:
    """This account's own submissions, newest first, as short list entries."""
    query = select(Submission).where(Submission.user_id == user_id, Submission.purpose == PRACTICE)
    if exercise:
        query = query.where(Submission.exercise_slug == exercise)
    query = query.order_by(Submission.created_at.desc(), Submission.id.desc())
    rows = session.scalars(query.limit(max(1, min(limit, MAX_LISTED))))
    return [
        {
            "id": row.id,
            "exercise": row.exercise_slug,
            "created_at": as_utc(row.created_at).isoformat(),
            "framework": row.framework,
            "mode": row.mode,
            "status": row.status,
            "verdict": row.verdict,
            "score": row.score,
        }
        for row in rows
    ]
