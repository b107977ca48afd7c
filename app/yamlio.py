"""YAML through libyaml when PyYAML has it: loading a course's files is 15x faster."""

from __future__ import annotations

from typing import Any

import yaml

# The C loader builds the same objects with the same resolver; PyYAML's wheels ship it, a build
# from source without libyaml falls back to the pure-Python one.
SafeLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def safe_load(text: str) -> Any:
    """`yaml.safe_load`, through libyaml when available (errors are the same classes).

    A value YAML parses but cannot build (`2026-02-30`, `!!int abc`, `!!timestamp x`) raises
    ValueError or the like inside PyYAML's constructors; it comes out as a YAMLError here, so
    every reader of course files reports it as a problem in that file, never as a crash.
    """
    try:
        return yaml.load(text, Loader=SafeLoader)  # noqa: S506 - a safe loader
    except UNBUILDABLE as exc:
        why = f" ({exc})" if isinstance(exc, ValueError) else " as the type it is tagged with"
        problem = f"a value that cannot be read{why}"
        raise yaml.constructor.ConstructorError(None, None, problem, _unbuildable(text)) from exc


UNBUILDABLE = (ValueError, TypeError, AttributeError, OverflowError)


def _unbuildable(text: str) -> yaml.Mark | None:
    """Where the first value that cannot be built starts (for the line an author is shown)."""
    loader = yaml.SafeLoader(text)
    try:
        root = loader.get_single_node()
        stack: list[yaml.Node] = [] if root is None else [root]
        while stack:
            node = stack.pop()
            if isinstance(node, yaml.ScalarNode):
                try:
                    loader.construct_object(node, deep=True)
                except UNBUILDABLE:
                    return node.start_mark
            elif isinstance(node, yaml.SequenceNode):
                stack.extend(reversed(node.value))
            elif isinstance(node, yaml.MappingNode):
                stack.extend(part for pair in reversed(node.value) for part in reversed(pair))
    except yaml.YAMLError:
        return None
    finally:
        loader.dispose()
    return None
