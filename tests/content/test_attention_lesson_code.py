"""The attention course's code blocks run, and print what their comments say they print."""

from __future__ import annotations

import contextlib
import io
import re
import warnings

import pytest

from app.config import ROOT

LESSONS = ROOT / "courses" / "attention-step-by-step" / "lessons"
# What each lesson's blocks print, as the text shows it (in comments after print or below it).
PRINTED = {
    "01-scaled-dot-product.md": ["[0.73105858 0.26894142]", "True\nFalse"],
    "02-masking.md": [],
    "03-multi-head.md": ["[[ 0  1]\n [10 11]]", "[[0 1]\n [2 3]]", "tensor(True)"],
    "04-modern-attention.md": [
        "[0. 0. 0. 0. 1. 1. 1. 1.]",
        "[0. 1. 0. 1. 0. 1. 0. 1.]",
        "[[1 0 0 0 0 0]\n [1 1 0 0 0 0]\n [1 1 1 0 0 0]\n [0 1 1 1 0 0]\n [0 0 1 1 1 0]\n"
        " [0 0 0 1 1 1]]\n26",
        "(2, 5, 8, 16)\nTrue",
    ],
}


def _blocks(name: str) -> list[str]:
    text = (LESSONS / name).read_text(encoding="utf-8")
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


@pytest.mark.parametrize("name", sorted(PRINTED))
def test_the_lesson_code_runs_and_prints_what_the_text_says(name: str) -> None:
    out = io.StringIO()
    scope: dict[str, object] = {}
    with contextlib.redirect_stdout(out), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for block in _blocks(name):
            exec(compile(block, name, "exec"), scope)  # our own lesson text
    printed = out.getvalue()
    for expected in PRINTED[name]:
        assert expected in printed, (expected, printed)


def test_every_lesson_is_listed() -> None:
    assert sorted(p.name for p in LESSONS.glob("*.md")) == sorted(PRINTED)
