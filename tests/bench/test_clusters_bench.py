"""The clusters benchmark at test size: planted mistakes, a third undeclared, found again."""

from __future__ import annotations

from pathlib import Path

from app.bench.clusters import PLANTED, measure
from app.db import session_factory


def test_every_planted_group_is_found_with_purity_at_least_0_9(data_dir: Path) -> None:
    with session_factory()() as session:
        found = measure(session, 60, repeats=1)
    assert found["all_found"], found["groups"]
    assert found["min_purity"] >= 0.9
    for planted in PLANTED:
        group = found["groups"][planted.label]
        assert group["in_its_cluster"] == group["submissions"]  # no planted group is split
        # A declared mistake's cluster says so; an undeclared one's names none.
        assert (group["covered_by"] == planted.label) == planted.declared, planted.label
    assert any(not p.declared for p in PLANTED) and any(p.declared for p in PLANTED)
