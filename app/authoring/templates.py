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
