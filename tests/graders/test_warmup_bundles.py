"""The warm-up bundle runs each distinct input signature once.

Why: cases that differ only in their (hidden) seed become the same zero inputs in the bundle, and
running them again compiles nothing new; the Flax exercise warmed 14 cases where 8 differ, each
run a few milliseconds of dispatch per operation (issue 54: a restart's first Flax verdict).
"""

from __future__ import annotations

import json
from pathlib import Path

from graders.host.warmup import warmup_bundles
from graders.judging.spec import load_spec

ROOT = Path(__file__).resolve().parents[2]


def _signature(case: dict[str, object]) -> str:
    return json.dumps(case, sort_keys=True)


def test_each_bundle_warms_every_distinct_case_once_in_the_cases_order() -> None:
    bundles = warmup_bundles(ROOT / "exercises")
    assert "learned-pos-embed-forward" in bundles
    for slug, bundle in bundles.items():
        spec = load_spec(ROOT / "exercises" / slug)
        for item in bundle:
            signatures = [_signature(case) for case in item["cases"]]
            assert len(signatures) == len(set(signatures)), slug
            assert len(signatures) <= len(spec.cases), slug
    forward = bundles["learned-pos-embed-forward"][0]["cases"]
    assert len(forward) < len(load_spec(ROOT / "exercises" / "learned-pos-embed-forward").cases)
    # the first case of each signature keeps its place, so a shape's first program comes first
    assert forward[0] == {"seed": 0, "T": 4, "d_model": 8}
    assert forward[1] == {"seed": 0, "T": 4.0, "d_model": 8.0}  # a float is another program
