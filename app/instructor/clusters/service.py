"""An exercise's clusters as pages and the API show them: members, program, heatmap, mistake."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.orm import Session

from app.instructor.clusters import query
from app.instructor.clusters.grouping import Cluster, group
from app.offerings.place import Place
from app.submissions.presenter import STAFF, present_report, read_report


@dataclass(frozen=True)
class ClusterView:
    """One cluster with what its representative's report says."""

    cluster: Cluster
    misconception: str | None  # the declared mistake its behaviour reproduces
    heatmap: dict[str, Any] | None  # its first failing test with previews, as staff see it
    failing: list[str] = field(default_factory=list)  # names of the tests it fails


@dataclass(frozen=True)
class ExerciseClusters:
    """Every cluster of one exercise in this request's offering, biggest first."""

    clusters: list[ClusterView]
    solved: set[int]  # students who have an accepted submission since (or before)
    unsigned: int  # wrong submissions graded before signatures existed

    def find(self, key: str) -> ClusterView | None:
        """The cluster with this id (its behaviour key)."""
        return next((c for c in self.clusters if c.cluster.key == key), None)


def declared_mistake(report: dict[str, Any]) -> str | None:
    """The declared mistake a report's behaviour signature names, if any test reproduces one."""
    tests = (report.get("behaviour") or {}).get("tests") or []
    return next((str(t["mistake"]) for t in tests if t.get("mistake")), None)


def _view(cluster: Cluster, report: dict[str, Any]) -> ClusterView:
    shown = present_report(read_report(report), viewer=STAFF) if report else None
    tests = shown.tests if shown else []
    failing = [t for t in tests if not t.passed]
    drawn = next((t for t in failing if t.expected is not None or t.received is not None), None)
    return ClusterView(
        cluster=cluster,
        misconception=declared_mistake(report),
        heatmap=drawn.as_json() if drawn else None,
        failing=[t.name for t in failing],
    )


def exercise_clusters(*, session: Session, slug: str, place: Place) -> ExerciseClusters:
    """Group the offering's wrong submissions to this exercise by behaviour."""
    clusters = group(query.wrong_rows(session=session, slug=slug, place=place))
    stored = query.reports(session=session, ids=[c.representative.submission_id for c in clusters])
    return ExerciseClusters(
        clusters=[_view(c, stored.get(c.representative.submission_id, {})) for c in clusters],
        solved=query.solvers(session=session, slug=slug, place=place),
        unsigned=query.unsigned_count(session=session, slug=slug, place=place),
    )


def cluster_json(view: ClusterView, *, solved: set[int]) -> dict[str, Any]:
    """One cluster in the API's shape (docs: interfaces, "Clusters and who needs help")."""
    cluster = view.cluster
    return {
        "id": cluster.key,
        "students": cluster.students,
        "submissions": len(cluster.rows),
        "members": [
            {
                "user_id": m.user_id,
                "email": m.email,
                "submission_id": m.submission_id,
                "solved": m.user_id in solved,
            }
            for m in cluster.members
        ],
        "representative": cluster.representative.submission_id,
        "misconception": view.misconception,
        "failing_tests": view.failing,
    }
