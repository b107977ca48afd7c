"""Add one declared mistake to an exercise's mistakes.yaml, keeping the author's comments."""

from __future__ import annotations

import re
import textwrap
from typing import Any

import yaml

from app.yamlio import safe_load


class _Dumper(yaml.SafeDumper):
    """Programs and long hints as block text (`|`), as authors write them."""


def _text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _text)


def slug_for(title: str, taken: set[str]) -> str:
    """A mistake id from its title ('Subtracted the positions' -> subtracted-the-positions)."""
    base = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")[:48].strip("-") or "mistake"
    found, n = base, 2
    while found in taken:
        found, n = f"{base}-{n}", n + 1
    return found


def with_mistake(text: str, entry: dict[str, Any]) -> str:
    """The file's text with `entry` appended to its `mistakes` list."""
    data = safe_load(text) or {}
    block = textwrap.indent(yaml.dump([entry], Dumper=_Dumper, sort_keys=False, width=100), "  ")
    if data.get("mistakes"):
        result = text.rstrip("\n") + "\n" + block
    else:  # `mistakes: []` or no list yet
        kept = re.sub(r"(?m)^mistakes:.*\n?", "", text).rstrip("\n")
        result = (kept + "\n" if kept else "") + "mistakes:\n" + block
    if (safe_load(result) or {}).get("mistakes", [])[-1:] != [entry]:
        raise ValueError("the mistakes file's layout could not take the new mistake")
    return result
