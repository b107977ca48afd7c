"""Starting texts for new content: mostly blank, with comments that say what goes where."""

from __future__ import annotations

LESSON_TEMPLATE = """---
# The lesson's permanent URL name: /lessons/{slug}. Do not change it once students use it.
slug: {slug}
title: "A title in a few words"
# Position in the course outline (ascending).
order: {order}
summary: One or two sentences shown in the course outline.
# Students cannot see a draft lesson; remove this line when it is ready.
draft: true
# The quiz: questions of type single, multiple, numeric or shape (see docs/authoring.md).
quiz:
  - id: first-question
    type: single
    prompt: Ask one thing.
    choices:
      - id: right
        text: The right answer.
        correct: true
      - id: wrong
        text: A tempting wrong answer.
        why: Say why it is wrong.
    explanation: Say why the right answer is right.
---

# A title in a few words

Write the lesson here in Markdown; $math$ and ```python code``` work as in other lessons.
"""

# A new exercise: every file it needs, mostly blank, with comments that say what goes where.
# It loads as it is (so the author sees only the problems of what they write); the model
# solution and the reference raise until written, so no one can mistake it for a finished one.
EXERCISE_YAML = """\
# Metadata of the exercise "{slug}" (docs/authoring.md lists every key; an unknown key is an error).
# The folder name and the page address /exercises/{slug}: do not rename it once students submit.
slug: {slug}
# Permanent id, unique in the course: keep it, never copy it into another exercise.
uuid: {uuid}
# TODO: the title shown in the course outline and at the top of the page.
title: "{title}"
# Position among the exercises (ascending).
order: {order}
# TODO: one sentence for the outline saying what the student builds.
summary: TODO say in one sentence what the student builds.
# The lesson this exercise practises, by its slug (optional).
# lesson: some-lesson
# What the student writes: a function (or kind: class for an nn.Module), found by this name.
entry:
  kind: function
  name: {func}
  signature: "{func}(x)"  # TODO: the arguments, as students should read them
# Frameworks offered, the default first; each needs starter/<name>.py and solutions/<name>.py.
frameworks: [{frameworks}]
# Optional: limits (time_ms, memory_mb), tolerance (rtol, atol), due, hidden_tests.
# Until you publish, students cannot see this exercise; `draft: true` would keep it hidden after.
"""

STATEMENT_MD = """\
# {title}

TODO: what the student builds and why, in a few sentences ($math$ and tables work).

## What to write

```python
def {func}(x): ...
```

TODO: each argument's shape and dtype, and what the function returns.
"""

REFERENCE_PY = '''\
"""The right answer for {slug}: graded outputs are compared with it; never shown to students."""

import numpy as np


def {func}(x):
    """TODO: the right answer, in NumPy, for the arguments that cases.py gives."""
    raise NotImplementedError("write the right answer in reference.py")
'''

CASES_PY = '''\
"""Test cases for {slug}: visible ones first, then hidden ones (students see only their names)."""

import numpy as np


def cases():
    """Each case names the function's arguments in "inputs"; use a fixed seed."""
    rng = np.random.default_rng(0)
    return [
        # TODO: cases that tell a right answer from a wrong one; edge cases as hidden ones.
        {{"name": "first case", "hidden": False, "inputs": {{"x": rng.standard_normal((2, 3))}}}},
    ]
'''

MISTAKES_YAML = """\
# Known mistakes: wrong code students are likely to write, and the hint shown when it is seen.
# Each one must be rejected by the tests and recognised from its output. For example:
# mistakes:
#   - id: off-by-one          # stable id, unique within the exercise
#     title: Counted from 1   # short name in feedback and analytics
#     hint: Positions count from 0.
#     framework: numpy        # the framework the code is written in
#     code: |
#       def {func}(x):
#           return x + 1
mistakes: []
"""

STARTER_PY = '''\
def {func}(x):
    """TODO: what students start from: the signature, a docstring, a comment or two."""
    raise NotImplementedError("write your solution here")
'''

SOLUTION_PY = """\
def {func}(x):
    # TODO: your model solution in this framework; it must pass every test.
    raise NotImplementedError("write the model solution")
"""


def exercise_files(
    *, slug: str, uuid: str, order: int, func: str, frameworks: list[str]
) -> dict[str, str]:
    """The files of a new exercise, path to text."""
    title = slug.replace("-", " ").capitalize()
    values = {
        "slug": slug,
        "uuid": uuid,
        "order": order,
        "func": func,
        "title": title,
        "frameworks": ", ".join(frameworks),
    }
    base = f"exercises/{slug}"
    files = {
        f"{base}/exercise.yaml": EXERCISE_YAML.format(**values),
        f"{base}/statement.md": STATEMENT_MD.format(**values),
        f"{base}/reference.py": REFERENCE_PY.format(**values),
        f"{base}/cases.py": CASES_PY.format(**values),
        f"{base}/mistakes.yaml": MISTAKES_YAML.format(**values),
    }
    for fw in frameworks:
        files[f"{base}/starter/{fw}.py"] = STARTER_PY.format(**values)
        files[f"{base}/solutions/{fw}.py"] = SOLUTION_PY.format(**values)
    return files
