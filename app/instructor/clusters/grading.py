"""Grading a cluster together: one rubric grading and comment applied to each member's
submission (each gets its own rubric grade, seen by its student, open to its own regrade
request). Members are those of the request's offering only, as the clusters page shows them."""

from __future__ import annotations

from sqlalchemy.orm import Session

from app.instructor.clusters.service import exercise_clusters
from app.instructor.overrides import InstructorError
from app.instructor.rubric_grading import grade_by_rubric
from app.offerings.place import Place
from app.submissions.models import Submission
from app.users.models import User
from graders import Rubric

NO_CLUSTER = "There is no such group of wrong submissions in this offering (it may have changed)."


def grade_cluster(
    *,
    session: Session,
    slug: str,
    key: str,
    rubric: Rubric,
    applied: list[str],
    comment: str,
    grader: User,
    place: Place,
    lab: bool = False,
) -> list[int] | None:
    """Apply the grading to every member's submission in the cluster; their ids, in order
    (None: no such cluster in this offering)."""
    found = exercise_clusters(session=session, slug=slug, place=place).find(key)
    if found is None:
        return None
    known = {item.id for item in rubric.items}
    unknown = [a for a in applied if a not in known]
    if unknown:  # before anything is written: all members or none
        raise InstructorError(f"This rubric has no item {unknown[0]!r}.")
    graded: list[int] = []
    for member in found.cluster.members:
        row = session.get(Submission, member.submission_id)
        if row is None:
            continue
        grade_by_rubric(
            session=session,
            submission=row,
            rubric=rubric,
            applied=applied,
            comment=comment,
            grader=grader,
            lab=lab,
        )
        graded.append(row.id)
    return graded
