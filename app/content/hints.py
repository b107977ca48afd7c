"""An exercise's hints in steps: hints/1.md, hints/2.md, ... in its folder, in that order."""

from __future__ import annotations

import re
from pathlib import Path

from app.content.render import render_content

HINTS_DIR = "hints"
_NAME = re.compile(r"(\d+)\.md")


class HintError(Exception):
    """A hints folder that does not follow the naming rule; says which file and why."""


def load_hints(folder: Path) -> list[str]:
    """The hints as HTML, first to last; numbering must be 1, 2, 3 ... without gaps."""
    directory = folder / HINTS_DIR
    if not directory.is_dir():
        return []
    numbered: dict[int, Path] = {}
    for path in sorted(directory.iterdir()):
        found = _NAME.fullmatch(path.name)
        if found is None:
            raise HintError(f"{HINTS_DIR}/{path.name}: hint files are named 1.md, 2.md, ...")
        numbered[int(found.group(1))] = path
    expected = list(range(1, len(numbered) + 1))
    if sorted(numbered) != expected:
        raise HintError(
            f"{HINTS_DIR}/: hints must be numbered 1 to {len(numbered)} without gaps, "
            f"found {sorted(numbered)}"
        )
    hints = []
    for number in expected:
        text = numbered[number].read_text(encoding="utf-8").strip()
        if not text:
            raise HintError(f"{HINTS_DIR}/{number}.md is empty")
        hints.append(render_content(text))
    return hints
