"""`python -m app new exercise|lesson SLUG`: a small working draft with every field explained.

The generated files pass `validate` as they are (the solution is accepted, the starter is not,
the sample mistake is recognised), so an author changes one thing at a time and re-runs it.
"""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path

import yaml

from app import yamlio
from graders import FRAMEWORKS, SLUG_RE

SCHEMA_DIR = "docs/json-schemas"


class ScaffoldError(ValueError):
    """The scaffold cannot be written; the message says what to change."""


def entry_name(slug: str) -> str:
    """A Python function name for a slug ('rope-angles' -> 'rope_angles')."""
    name = slug.replace("-", "_")
    return name if name[:1].isalpha() else f"solve_{name}"


def title_for(slug: str) -> str:
    """A first title from the slug ('rope-angles' -> 'Rope angles')."""
    words = slug.replace("-", " ")
    return words[:1].upper() + words[1:]


def _check_slug(slug: str) -> None:
    if not re.fullmatch(SLUG_RE, slug):
        raise ScaffoldError(
            f"'{slug}' is not a valid slug: use lowercase letters, digits and single hyphens, "
            "e.g. 'rope-angles'"
        )


def _next_order(paths: list[Path], front_matter: bool) -> int:
    """One more than the largest `order` already used (unreadable files are skipped)."""
    orders = [0]
    for path in paths:
        try:
            text = path.read_text(encoding="utf-8")
            if front_matter:
                text = text.split("\n---\n", 1)[0].removeprefix("---\n")
            data = yamlio.safe_load(text)
        except (OSError, UnicodeDecodeError, yaml.YAMLError):
            continue
        if isinstance(data, dict) and isinstance(data.get("order"), int):
            orders.append(data["order"])
    return max(orders) + 1


def _fill(template: str, values: dict[str, str]) -> str:
    for key, value in values.items():
        template = template.replace(f"@@{key}@@", value)
    return template


EXERCISE_YAML = """\
# yaml-language-server: $schema=../../@@schema_dir@@/exercise.schema.json
# Metadata of the exercise "@@slug@@". `python -m app validate` checks every key (an unknown
# key is an error) and grades the files of this folder with the real grader.
# This folder starts as a small working example: change it step by step, validating as you go.
#
# The files of an exercise (TODO: rewrite each for your task):
#   statement.md        what students read beside the editor (markdown, $math$, tables)
#   starter/<fw>.py     what the editor opens with; validate checks it is NOT accepted
#   solutions/<fw>.py   your model solution per framework; validate checks it is accepted
#   reference.py        the trusted answer, run outside the sandbox, never shown to students
#   cases.py            the test inputs: visible cases first, hidden ones after
#   mistakes.yaml       known wrong answers and the hint shown for each
#   hints/1.md, 2.md    hints in steps: students open them one at a time (optional)

# The folder name and the page address /exercises/@@slug@@. Do not rename it once students
# have submitted, or their submissions no longer belong to the exercise.
slug: @@slug@@
# Permanent id, unique in the course, made when this folder was: keep it, never copy it.
uuid: @@uuid@@
# TODO: the title shown in the course outline and at the top of the page.
title: @@title_yaml@@
# Position among the exercises (ascending).
order: @@order@@
# TODO: one sentence for the outline saying what the student builds.
summary: Add each token's position index to all of its features.
# The lesson this exercise practises, by its slug (the page links to it). Optional.
# lesson: learned-absolute
# What the student writes; the grader looks it up by name in their file.
entry:
  kind: function  # "function", or "class" for an nn.Module
  name: @@func@@
  signature: "@@func@@(x)"  # shown to students
# Frameworks offered, the default first. Each one needs starter/<name>.py and
# solutions/<name>.py. Choose from: numpy, torch, jax.
frameworks: [@@frameworks@@]
# Limits for one grading job (all test cases together).
limits:
  time_ms: 2000  # wall clock in ms, 100 to 60000 (JAX jobs get extra time to compile)
  memory_mb: 1024  # memory of the sandboxed process tree, 64 to 16384
# A float output passes when |received - expected| <= atol + rtol * |expected|.
tolerance:
  rtol: 1.0e-5
  atol: 1.0e-6
# Drafts are visible to instructors only (preview: /instructor/content). false publishes it.
draft: true
# Optional due date, UTC unless the value has a zone; later submissions are flagged late.
# due: 2026-12-01T23:59:00Z
"""

STATEMENT_MD = """\
# @@title@@

Each token gets a number for where it sits in the sequence: 0 for the first token, 1 for the
next, and so on. In this exercise you add that number to every feature of the token.

## What to write

```python
def @@func@@(x): ...
```

| argument | shape | dtype | meaning |
|---|---|---|---|
| `x` | `(N, T, d_model)` | float32 | features of `N` sequences of `T` tokens |

Return an array of the same shape in which the token at position $t$ has $t$ added to every
feature:

$$\\text{out}[n, t, i] = x[n, t, i] + t$$
"""

REFERENCE_PY = '''\
"""Trusted reference for @@slug@@: runs outside the sandbox, in float64."""

from __future__ import annotations

import numpy as np


def @@func@@(x: np.ndarray) -> np.ndarray:
    """Add the position index t to every feature of the token at position t."""
    # TODO: the right answer for your exercise. It takes the same arguments as the student's
    # function (the names in cases.py) and is never shown to students.
    values = np.asarray(x, dtype=np.float64)
    positions = np.arange(values.shape[1], dtype=np.float64)  # (T,)
    return values + positions[None, :, None]
'''

CASES_PY = '''\
"""Test cases for @@slug@@: visible ones first, then hidden ones (students see only names)."""

from __future__ import annotations

from typing import Any

import numpy as np


def _case(name: str, hidden: bool, x: np.ndarray) -> dict[str, Any]:
    # "inputs" maps each argument name of the function to an array or a number.
    return {"name": name, "hidden": hidden, "inputs": {"x": x}}


def cases() -> list[dict[str, Any]]:
    """Deterministic cases (a fixed seed), so every run grades against the same values."""
    # TODO: cases for your exercise; include edge cases as hidden ones.
    rng = np.random.default_rng(20260101)

    def features(*shape: int) -> np.ndarray:
        return rng.standard_normal(shape).astype(np.float32)

    return [
        _case("small batch", False, features(2, 4, 3)),
        _case("one sequence", False, features(1, 6, 2)),
        _case("single token", True, features(3, 1, 4)),
        _case("d_model of 1", True, features(2, 5, 1)),
        _case("longer sequences", True, features(4, 32, 8)),
    ]


def generate(rng: np.random.Generator, size: int) -> dict[str, Any]:
    """Extra visible cases the platform draws for size 1, 2, ... 5 (seeded per exercise).

    Grow the input with `size`: the report shows the first that fails, so the smallest.
    Delete this function if random inputs make no sense for your exercise.
    """
    return _case("generated", False, rng.standard_normal((1 + size // 2, size + 1, size)))
'''

MISTAKES_YAML = """\
# yaml-language-server: $schema=../../@@schema_dir@@/mistakes.schema.json
# Known mistakes: wrong code students are likely to write, and the hint that helps them.
# `validate` runs each one: the grader must reject it AND recognise it from its output.
# TODO: replace the example with mistakes you have seen, or use `mistakes: []`.
mistakes:
  - id: one-based-positions  # stable id, unique within the exercise
    title: Counted positions from 1  # short name in feedback and analytics
    hint: >-
      Every token got one more than its position. Positions count from 0: the first token
      is position 0, so it keeps its features unchanged.
    framework: @@first_framework@@  # the framework the code below is written in
    code: |
@@mistake_code@@"""

STARTERS = {
    "numpy": "import numpy as np\n\n\ndef @@func@@(x: np.ndarray) -> np.ndarray:\n",
    "torch": "import torch\n\n\ndef @@func@@(x: torch.Tensor) -> torch.Tensor:\n",
    "jax": "import jax\nimport jax.numpy as jnp\n\n\ndef @@func@@(x: jax.Array) -> jax.Array:\n",
}
STARTER_BODY = '''\
    """Add each token's position index to all of its features.

    Args:
        x: (N, T, d_model) float32 features.

    Returns:
        (N, T, d_model) with out[n, t, i] = x[n, t, i] + t.
    """
    # 1. Build the positions 0, 1, ..., T-1.
    # 2. Add them along the T axis (broadcast over N and d_model).
    raise NotImplementedError("write your solution here")
'''
SOLUTIONS = {
    "numpy": "import numpy as np\n\n\ndef @@func@@(x):\n"
    "    positions = np.arange(x.shape[1], dtype=x.dtype)  # (T,)\n"
    "    return x + positions[None, :, None]  # (N, T, d_model)\n",
    "torch": "import torch\n\n\ndef @@func@@(x):\n"
    "    positions = torch.arange(x.shape[1], dtype=x.dtype)  # (T,)\n"
    "    return x + positions[None, :, None]  # (N, T, d_model)\n",
    "jax": "import jax.numpy as jnp\n\n\ndef @@func@@(x):\n"
    "    positions = jnp.arange(x.shape[1], dtype=x.dtype)  # (T,)\n"
    "    return x + positions[None, :, None]  # (N, T, d_model)\n",
}
MISTAKES = {
    "numpy": "import numpy as np\n\n\ndef @@func@@(x):\n"
    "    return x + np.arange(1, x.shape[1] + 1, dtype=x.dtype)[None, :, None]\n",
    "torch": "import torch\n\n\ndef @@func@@(x):\n"
    "    return x + torch.arange(1, x.shape[1] + 1, dtype=x.dtype)[None, :, None]\n",
    "jax": "import jax.numpy as jnp\n\n\ndef @@func@@(x):\n"
    "    return x + jnp.arange(1, x.shape[1] + 1, dtype=x.dtype)[None, :, None]\n",
}


def new_exercise(
    content_dir: Path, slug: str, *, title: str | None = None, frameworks: list[str] | None = None
) -> list[Path]:
    """Write exercises/<slug>/ as a draft; refuses to touch an existing folder."""
    _check_slug(slug)
    chosen = frameworks or ["numpy"]
    unknown = [f for f in chosen if f not in FRAMEWORKS]
    if unknown or len(set(chosen)) != len(chosen):
        raise ScaffoldError(
            f"frameworks must be distinct names from {', '.join(FRAMEWORKS)}; got {chosen}"
        )
    exercises = content_dir / "exercises"
    folder = exercises / slug
    if folder.exists():
        raise ScaffoldError(f"{folder} already exists; choose another slug or edit that folder")
    order = _next_order(sorted(exercises.glob("*/exercise.yaml")), front_matter=False)
    values = {
        "slug": slug,
        "uuid": str(uuid.uuid4()),
        "title": title or title_for(slug),
        "title_yaml": json.dumps(title or title_for(slug)),
        "func": entry_name(slug),
        "order": str(order),
        "frameworks": ", ".join(chosen),
        "first_framework": chosen[0],
        "schema_dir": SCHEMA_DIR,
    }
    mistake = _fill(MISTAKES[chosen[0]], values)
    values["mistake_code"] = "".join(
        f"      {line}".rstrip() + "\n" for line in mistake.splitlines()
    )
    files = {
        "exercise.yaml": EXERCISE_YAML,
        "statement.md": STATEMENT_MD,
        "reference.py": REFERENCE_PY,
        "cases.py": CASES_PY,
        "mistakes.yaml": MISTAKES_YAML,
        "hints/1.md": "TODO: a first, gentle hint (what to look at), in markdown.\n",
        "hints/2.md": "TODO: a second hint that says more (which function or axis).\n",
    }
    for fw in chosen:
        files[f"starter/{fw}.py"] = STARTERS[fw] + STARTER_BODY
        files[f"solutions/{fw}.py"] = SOLUTIONS[fw]
    written = []
    for name, template in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_fill(template, values), encoding="utf-8")
        written.append(path)
    return written


LESSON_MD = """\
---
# Lesson front matter, checked by `python -m app validate` (an unknown key is an error).
# TODO: write the lesson body in markdown below the closing '---' line ($math$, tables,
# admonitions and plot blocks work, as in the other lessons).
# Permanent id: the page address /lessons/@@slug@@. Do not rename it once students have read it.
slug: @@slug@@
# TODO: the title shown in the outline and at the top of the page.
title: @@title_yaml@@
# Position in the course outline (ascending).
order: @@order@@
# TODO: one or two sentences for the outline.
summary: >-
  What a learned position table costs in parameters, worked out by hand.
# Drafts are visible to instructors only (preview: /instructor/content). false publishes it.
draft: true
# Optional due date for the quiz, UTC unless the value has a zone; later attempts are flagged.
# due: 2026-12-01T23:59:00Z
# The quiz, in order. Question types: single, multiple, numeric, shape (see other lessons).
# `accept` and `reject` are examples that validate grades, to prove the answer checker right.
quiz:
  - id: table-params  # stable id, unique within this quiz
    type: numeric
    params:  # each student draws one value per name; write {name} to use it
      max_len: [128, 256, 512]
      d_model: [64, 128, 256]
    prompt: >-
      A learned position table has {max_len} rows of width d_model = {d_model}. How many
      trainable parameters does it hold?
    answer: "max_len*d_model"  # a number, or arithmetic over the params
    accept: ["8192", "128*64"]  # checked with the first value of each param
    reject: ["192", "8191"]
    explanation: >-
      One parameter per entry of the (max_len, d_model) table: max_len × d_model.
  - id: table-shape
    type: single
    prompt: Which axis of the position table is indexed by the position?
    choices:
      - id: first
        text: The first axis (rows)
        correct: true
        why: Row t is the vector of position t.
      - id: second
        text: The second axis (columns)
        why: Columns are the d_model features of every position.
    explanation: >-
      The table has shape (max_len, d_model); looking up position t takes row t.
---

# @@title@@

A learned position table stores one vector of width `d_model` for each of `max_len`
positions, so it holds `max_len × d_model` trainable numbers: one for every entry of the
table, and nothing else.
"""


def new_lesson(content_dir: Path, slug: str, *, title: str | None = None) -> Path:
    """Write lessons/NN-<slug>.md as a draft, numbered after the existing lessons."""
    _check_slug(slug)
    lessons = content_dir / "lessons"
    existing = sorted(lessons.glob("*.md"))
    for path in existing:
        if path.stem.split("-", 1)[-1] == slug or path.stem == slug:
            raise ScaffoldError(f"{path} already uses the slug '{slug}'; choose another slug")
    numbers = [int(p.name[:2]) for p in existing if p.name[:2].isdigit()]
    path = lessons / f"{max(numbers, default=0) + 1:02d}-{slug}.md"
    values = {
        "slug": slug,
        "title": title or title_for(slug),
        "title_yaml": json.dumps(title or title_for(slug)),
        "order": str(_next_order(existing, front_matter=True)),
    }
    lessons.mkdir(parents=True, exist_ok=True)
    path.write_text(_fill(LESSON_MD, values), encoding="utf-8")
    return path
