"""Every objective of the attention course's lessons is assessed by at least one quiz question.

Exercises assess them too (named in the comments); the quiz ids are what this file can check
inside one lesson, so that removing a question cannot leave an objective unassessed unnoticed.
"""

from __future__ import annotations

import re

import pytest

from app import yamlio
from app.config import ROOT

LESSONS = ROOT / "courses" / "attention-step-by-step" / "lessons"
ASSESSED = {
    "01-scaled-dot-product.md": [
        ["score-shape", "output-shape", "two-key-weight"],  # + scaled-dot-product-attention
        ["dot-variance", "scale-value", "why-scale"],
        ["naive-softmax"],  # + the exercise's large-scores case (softmax-without-max)
        ["shuffle-tokens"],
    ],
    "02-masking.md": [
        ["causal-hidden", "causal-count"],  # + causal-attention-weights
        ["padding-mask-shape", "padding-weight", "left-padding-row"],  # + key-padding-mask
        ["fill-value", "mask-before-softmax", "fp16-fill"],
        ["torch-mask-conventions"],
    ],
    "03-multi-head.md": [
        ["split-shape", "per-head-scores"],  # + split-heads, merge-heads
        ["reshape-only"],
        ["base-head-width", "projection-params", "multi-head-cost", "score-flops"],
        ["mha-in-proj-shape"],  # + causal-self-attention-rope (the capstone)
    ],
    "04-modern-attention.md": [
        ["gqa-kv-shape", "repeat-kv-group", "gqa-saves", "kv-bytes"],
        ["window-pairs"],
        ["attention-sink"],
        ["scores-memory", "flash-exact", "jax-layout"],  # + kv-cache-decoding
    ],
}


def _objectives_and_quiz(name: str) -> tuple[list[str], set[str]]:
    _, front, body = (LESSONS / name).read_text(encoding="utf-8").split("---", 2)
    section = re.search(r"^## Learning objectives\n(.*?)^## ", body, flags=re.S | re.M)
    assert section is not None
    objectives = re.findall(r"^- ", section.group(1), flags=re.M)
    quiz = {str(q["id"]) for q in yamlio.safe_load(front)["quiz"]}
    return objectives, quiz


@pytest.mark.parametrize("name", sorted(ASSESSED))
def test_each_objective_has_quiz_questions_that_exist(name: str) -> None:
    objectives, quiz = _objectives_and_quiz(name)
    assert len(objectives) == len(ASSESSED[name])
    for ids in ASSESSED[name]:
        assert ids and set(ids) <= quiz, sorted(set(ids) - quiz)


def test_every_lesson_of_the_course_is_mapped() -> None:
    assert sorted(p.name for p in LESSONS.glob("*.md")) == sorted(ASSESSED)
