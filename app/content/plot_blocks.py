"""A ```plot fence: its YAML checked, and the figure HTML (or visible error box) it becomes."""

from __future__ import annotations

import html
from collections.abc import Iterable
from dataclasses import dataclass

import yaml

from app import yamlio
from app.content.plots import (
    PLOTS,
    IntParam,
    PlotError,
    PlotSpec,
    UnknownPlot,
    Value,
    check_explicit,
    query_string,
    render_plot,
    resolve,
)

_RESERVED = ("name", "caption", "interactive")


@dataclass(frozen=True)
class PlotBlock:
    """A checked ```plot fence."""

    name: str
    explicit: dict[str, Value]
    params: dict[str, Value]
    caption: str
    interactive: bool


def _key_line(text: str, key: str | None) -> int | None:
    if key is None:
        return None
    for number, line in enumerate(text.splitlines(), start=1):
        if line.lstrip().startswith(f"{key}:"):
            return number
    return None


def parse_block(text: str) -> PlotBlock:
    """Read a fence body; PlotError.line is the line inside the block when it can be found."""
    try:
        data = yamlio.safe_load(text)
    except yaml.YAMLError as exc:
        error = PlotError(f"the plot block is not valid YAML: {getattr(exc, 'problem', exc)}")
        mark = getattr(exc, "problem_mark", None)
        # At the end of the block YAML points past the last line; name the last line instead.
        last = max(len(text.splitlines()), 1)
        error.line = min(mark.line + 1, last) if mark is not None else None
        raise error from exc
    try:
        return _block_from(data)
    except PlotError as exc:
        exc.line = _key_line(text, exc.key)
        raise


def _block_from(data: object) -> PlotBlock:
    if not isinstance(data, dict):
        raise PlotError("the plot block must be YAML keys and values, starting with 'name:'.")
    name = data.get("name")
    if not isinstance(name, str):
        raise PlotError(f"the plot block needs 'name:', one of: {', '.join(PLOTS)}.", "name")
    caption = data.get("caption", "")
    if not isinstance(caption, str):
        raise PlotError("caption must be text.", "caption")
    interactive = data.get("interactive", False)
    if not isinstance(interactive, bool):
        raise PlotError("interactive must be true or false.", "interactive")
    try:
        raw = {str(k): v for k, v in data.items() if k not in _RESERVED}
        explicit = check_explicit(name, raw)
        params = dict(resolve(name, raw))
    except UnknownPlot as exc:
        raise PlotError(str(exc), "name") from exc
    return PlotBlock(name, explicit, params, caption.strip(), interactive)


def parse_problems(fences: Iterable[tuple[int, str]]) -> list[tuple[int, str]]:
    """(line, message) for each fence that does not parse; fence lines are 1-based."""
    problems: list[tuple[int, str]] = []
    for line, body in fences:
        try:
            parse_block(body)
        except PlotError as exc:
            where = line + exc.line if exc.line else line
            problems.append((where, f"plot: {exc}"))
    return problems


def draw_problems(fences: Iterable[tuple[int, str]]) -> list[tuple[int, str]]:
    """(line, message) for each well-formed fence whose drawing fails."""
    problems: list[tuple[int, str]] = []
    for line, body in fences:
        try:
            block = parse_block(body)
        except PlotError:
            continue  # parse_problems reports these
        try:
            render_plot(block.name, block.params)
        except Exception as exc:
            problems.append((line, f"plot '{block.name}' could not be drawn: {exc}"))
    return problems


def plot_error_html(reason: str) -> str:
    """The visible box a broken block becomes, so one typo never takes the page down."""
    return (
        '<div class="plot-error"><p><strong>Plot unavailable:</strong> '
        f"{html.escape(reason)}</p></div>\n"
    )


def _controls_html(block: PlotBlock, spec: PlotSpec, action: str) -> str:
    parts = [
        f'<form class="plot-controls" method="get" action="{action}" data-plot="{block.name}">'
    ]
    for key in spec.controls:
        param = spec.param(key)
        assert isinstance(param, IntParam)
        step = 2 if param.even else 1
        parts.append(
            f'<label class="plot-control">{html.escape(param.label)} '
            f'<input type="number" name="{key}" value="{block.params[key]}" '
            f'min="{param.low}" max="{param.high}" step="{step}" required></label>'
        )
    for key, value in block.explicit.items():
        if key not in spec.controls:
            shown = ",".join(map(str, value)) if isinstance(value, tuple) else str(value)
            parts.append(f'<input type="hidden" name="{key}" value="{shown}">')
    parts.append('<button type="submit">Update</button></form>')
    return "".join(parts)


def figure_html(block: PlotBlock, caption_html: str) -> str:
    """<figure> with an <img> of the SVG (never inline SVG), optional controls and caption."""
    spec = PLOTS[block.name]
    action = f"/plots/{block.name}.svg"
    query = query_string(block.explicit)
    src = f"{action}?{query}" if query else action
    alt = block.caption or spec.describe(block.params)
    width, height = spec.pixels
    parts = [
        f'<figure class="plot" data-plot="{block.name}">',
        f'<img class="plot-image" src="{html.escape(src)}" alt="{html.escape(alt)}" '
        f'width="{width}" height="{height}" loading="lazy">',
    ]
    if block.interactive:
        parts.append(_controls_html(block, spec, action))
    if caption_html:
        parts.append(f"<figcaption>{caption_html}</figcaption>")
    parts.append("</figure>\n")
    return "".join(parts)
