"""Lesson plots: the catalogue, checked parameters, and SVG drawn once and cached."""

from __future__ import annotations

import hashlib
import io
import re
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from app.content import attention_figures as attention
from app.content import plot_figures as figs
from app.content.plot_figures import alibi_slopes, sinusoidal_table

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "PLOTS",
    "IntParam",
    "PlotError",
    "PlotSpec",
    "RenderedPlot",
    "UnknownPlot",
    "Value",
    "alibi_slopes",
    "check_explicit",
    "etag_matches",
    "query_string",
    "render_plot",
    "resolve",
    "sinusoidal_table",
    "spec_for",
]

Value = int | tuple[int, ...]
Params = tuple[tuple[str, Value], ...]
_INT_RE = re.compile(r"[+-]?\d{1,7}")


class PlotError(ValueError):
    """A plot request or block that cannot be drawn; the message is shown to people as is."""

    def __init__(self, message: str, key: str | None = None) -> None:
        super().__init__(message)
        self.key = key
        self.line: int | None = None


class UnknownPlot(PlotError):
    """No plot has this name (the route answers 404 rather than 422)."""


def _whole(name: str, raw: object) -> int:
    if isinstance(raw, int) and not isinstance(raw, bool):
        return raw
    if isinstance(raw, str) and _INT_RE.fullmatch(raw.strip()):
        return int(raw.strip())
    raise PlotError(f"{name} must be a whole number; got {raw!r}.", name)


@dataclass(frozen=True)
class IntParam:
    """One whole-number parameter with an inclusive range."""

    name: str
    low: int
    high: int
    default: int
    label: str
    even: bool = False

    def parse(self, raw: object) -> int:
        """Check one value from YAML or a query string."""
        value = _whole(self.name, raw)
        if not self.low <= value <= self.high or (self.even and value % 2):
            kind = "an even whole number" if self.even else "a whole number"
            raise PlotError(
                f"{self.name} must be {kind} from {self.low} to {self.high}; got {value}.",
                self.name,
            )
        return value


@dataclass(frozen=True)
class IntListParam:
    """A short list of distinct whole numbers; sorted, so equal requests share a cache entry."""

    name: str
    low: int
    high: int
    max_items: int
    default: tuple[int, ...] = ()

    def parse(self, raw: object) -> tuple[int, ...]:
        """Accept a YAML list or a comma-separated string."""
        items: Iterable[object]
        if isinstance(raw, str):
            items = [part for part in raw.split(",") if part.strip()]
        elif isinstance(raw, list | tuple):
            items = raw
        else:
            raise PlotError(
                f"{self.name} must be a list such as [0, 1, 2]; got {raw!r}.", self.name
            )
        values = [_whole(self.name, item) for item in items]
        if not 1 <= len(values) <= self.max_items:
            raise PlotError(
                f"{self.name} needs 1 to {self.max_items} numbers; got {len(values)}.", self.name
            )
        if len(set(values)) != len(values):
            raise PlotError(f"{self.name} lists a number twice: {values}.", self.name)
        bad = [v for v in values if not self.low <= v <= self.high]
        if bad:
            raise PlotError(
                f"{self.name} values must be from {self.low} to {self.high}; got {bad[0]}.",
                self.name,
            )
        return tuple(sorted(values))


Param = IntParam | IntListParam


@dataclass(frozen=True)
class PlotSpec:
    """What a plot accepts, how big it is, and how it is drawn."""

    params: tuple[Param, ...]
    controls: tuple[str, ...]
    size: tuple[float, float]
    draw: Callable[[Figure, Mapping[str, Any]], None]
    describe: Callable[[Mapping[str, Any]], str]
    finish: Callable[[dict[str, Any]], None] = field(default=lambda _p: None)
    raster_dpi: int = 72  # resolution of embedded heatmap pixels; bounds the SVG's size

    def param(self, name: str) -> Param:
        """The parameter called name (it exists: callers take names from params)."""
        return next(p for p in self.params if p.name == name)

    @property
    def pixels(self) -> tuple[int, int]:
        """The SVG's natural size in CSS pixels (96 per inch), for the <img> width and height."""
        return round(self.size[0] * 96), round(self.size[1] * 96)


def _max_len(default: int = 64) -> IntParam:
    return IntParam("max_len", 1, 512, default, "max_len (positions)")


def _d_model(low: int = 2, default: int = 128) -> IntParam:
    return IntParam("d_model", low, 1024, default, "d_model (dimensions)", even=True)


def _finish_curves(p: dict[str, Any]) -> None:
    d = p["d_model"]
    if not p["dims"]:
        p["dims"] = tuple(sorted({0, 1, 2 * (d // 8), 2 * (d // 4)} & set(range(d))))
    too_big = [dim for dim in p["dims"] if dim >= d]
    if too_big:
        raise PlotError(
            f"dims: {too_big[0]} is not a dimension when d_model is {d} (use 0 to {d - 1}).",
            "dims",
        )


def _finish_rope(p: dict[str, Any]) -> None:
    pairs = p["d_model"] // 2
    if p["pair"] >= pairs:
        raise PlotError(
            f"pair must be below d_model/2 = {pairs} (pairs are numbered 0 to {pairs - 1}); "
            f"got {p['pair']}.",
            "pair",
        )


PLOTS: dict[str, PlotSpec] = {
    "sinusoidal-heatmap": PlotSpec(
        params=(_max_len(), _d_model()),
        controls=("max_len", "d_model"),
        size=(7.0, 4.5),
        draw=figs.draw_sinusoidal_heatmap,
        describe=lambda p: (
            f"Heatmap of the sinusoidal position encoding: {p['max_len']} positions by "
            f"{p['d_model']} dimensions, values from -1 to 1"
        ),
    ),
    "sinusoidal-curves": PlotSpec(
        params=(_max_len(), _d_model(), IntListParam("dims", 0, 1023, 6)),
        controls=("max_len", "d_model"),
        size=(7.0, 3.6),
        draw=figs.draw_sinusoidal_curves,
        describe=lambda p: (
            f"Line plot of sinusoidal encoding dimensions {', '.join(map(str, p['dims']))} "
            f"against position, d_model {p['d_model']}"
        ),
        finish=_finish_curves,
    ),
    "sinusoidal-similarity": PlotSpec(
        params=(_max_len(), _d_model()),
        controls=("max_len", "d_model"),
        size=(7.0, 3.6),
        draw=figs.draw_sinusoidal_similarity,
        describe=lambda p: (
            f"Dot product of sinusoidal encodings against the offset between two positions, "
            f"d_model {p['d_model']}, symmetric around zero"
        ),
    ),
    "learned-table": PlotSpec(
        params=(_max_len(), IntParam("d_model", 1, 1024, 128, "d_model (dimensions)")),
        controls=("max_len", "d_model"),
        size=(7.0, 4.5),
        draw=figs.draw_learned_table,
        raster_dpi=54,  # noise does not compress: fewer pixels keep 512 x 1024 under 300 KB
        describe=lambda p: (
            f"Heatmap of a learned position table at initialisation: {p['max_len']} positions "
            f"by {p['d_model']} dimensions of small random values"
        ),
    ),
    "rope-rotation": PlotSpec(
        params=(
            _d_model(low=4, default=64),
            IntListParam("positions", 0, 8, 9, default=(0, 1, 2, 3, 4)),
            IntParam("pair", 1, 511, 1, "pair i (slower pair)"),
        ),
        controls=("d_model", "pair"),
        size=(7.0, 3.8),
        draw=figs.draw_rope_rotation,
        describe=lambda p: (
            f"Arrows showing one vector rotated for positions "
            f"{', '.join(map(str, p['positions']))}: quickly in dimension pair 0, "
            f"slowly in pair {p['pair']}"
        ),
        finish=_finish_rope,
    ),
    "alibi-bias": PlotSpec(
        params=(
            IntParam("heads", 1, 16, 8, "heads"),
            IntParam("T", 2, 64, 16, "T (tokens)"),
        ),
        controls=("heads", "T"),
        size=(8.0, 3.2),
        draw=figs.draw_alibi_bias,
        describe=lambda p: (
            f"ALiBi attention bias for {p['T']} tokens, some of {p['heads']} heads side by side: "
            "zero on the diagonal, more negative for distant keys, masked above the diagonal"
        ),
    ),
    "attention-scale": PlotSpec(
        params=(
            IntParam("max_dk", 2, 1024, 512, "largest d_k"),
            IntParam("keys", 2, 64, 16, "keys per query"),
        ),
        controls=("max_dk", "keys"),
        size=(8.0, 3.6),
        draw=attention.draw_attention_scale,
        describe=lambda p: (
            f"Measured variance of attention scores and entropy of the softmax against the key "
            f"width d_k from 1 to {p['max_dk']}, {p['keys']} keys per query: unscaled scores "
            "grow with d_k and the softmax becomes nearly one-hot; scaled ones stay near 1"
        ),
    ),
    "attention-heads": PlotSpec(
        params=(IntParam("T", 2, 32, 10, "T (tokens)"), IntParam("real", 1, 32, 32, "real tokens")),
        controls=("T", "real"),
        size=(8.0, 2.8),
        draw=attention.draw_attention_heads,
        describe=lambda p: (
            f"Attention weights of four heads over {p['T']} tokens under a causal mask: one "
            "attends to the previous token, one to itself, one to the first token and one "
            "spreads evenly over the past"
        ),
    ),
    "attention-masks": PlotSpec(
        params=(
            IntParam("T", 2, 48, 12, "T (tokens)"),
            IntParam("W", 1, 48, 4, "W (window)"),
            IntParam("sinks", 0, 8, 1, "sink tokens"),
        ),
        controls=("T", "W", "sinks"),
        size=(8.0, 3.2),
        draw=attention.draw_attention_masks,
        describe=lambda p: (
            f"Three attention masks for {p['T']} tokens: causal, a sliding window of {p['W']} "
            f"keys, and the window plus {p['sinks']} sink tokens that every query keeps seeing"
        ),
    ),
}


def spec_for(name: str) -> PlotSpec:
    """The plot's spec, or an UnknownPlot naming the plots that exist."""
    spec = PLOTS.get(name)
    if spec is None:
        known = ", ".join(PLOTS)
        raise UnknownPlot(f"There is no plot called '{name}'. Known plots: {known}.")
    return spec


def check_explicit(name: str, raw: Mapping[str, object]) -> dict[str, Value]:
    """Check the parameters someone wrote; unknown ones are errors, missing ones stay missing."""
    spec = spec_for(name)
    allowed = [p.name for p in spec.params]
    explicit: dict[str, Value] = {}
    for key, value in raw.items():
        if key not in allowed:
            raise PlotError(
                f"Plot '{name}' has no parameter '{key}'; it takes: {', '.join(allowed)}.", key
            )
        explicit[key] = spec.param(key).parse(value)
    return {p.name: explicit[p.name] for p in spec.params if p.name in explicit}


def resolve(name: str, raw: Mapping[str, object]) -> Params:
    """Checked parameters with defaults filled in: the cache key of one picture."""
    spec = spec_for(name)
    full: dict[str, Any] = {p.name: p.default for p in spec.params}
    full.update(check_explicit(name, raw))
    spec.finish(full)
    return tuple((p.name, full[p.name]) for p in spec.params)


def query_string(params: Mapping[str, Value]) -> str:
    """Canonical query for the SVG URL: lists as comma-separated numbers."""
    flat = {k: ",".join(map(str, v)) if isinstance(v, tuple) else str(v) for k, v in params.items()}
    return urlencode(flat, safe=",")


@dataclass(frozen=True)
class RenderedPlot:
    """SVG bytes and the validator a browser sends back to skip downloading them again."""

    svg: bytes
    etag: str


_draw_lock = threading.Lock()


@lru_cache(maxsize=1)
def _matplotlib_figure() -> type[Figure]:
    """Import and configure matplotlib on the first drawing, not when the app starts."""
    import matplotlib
    from matplotlib.figure import Figure

    # Fixed salt: the SVG's internal ids come out the same on every run, so ETags stay stable.
    matplotlib.rcParams["svg.hashsalt"] = "posembed-course-plots"
    # Text as paths: the picture looks the same whatever fonts the student's machine has.
    matplotlib.rcParams["svg.fonttype"] = "path"
    return Figure


@lru_cache(maxsize=64)
def _render(name: str, params: Params) -> RenderedPlot:
    spec = PLOTS[name]
    buffer = io.BytesIO()
    # One drawing at a time: matplotlib's shared font and text caches are not made for threads.
    with _draw_lock:
        fig = _matplotlib_figure()(
            figsize=spec.size
        )  # fixed margins: constrained layout doubles the time
        spec.draw(fig, dict(params))
        fig.savefig(
            buffer, format="svg", dpi=spec.raster_dpi, metadata={"Date": None, "Creator": None}
        )
    text = buffer.getvalue()
    svg = text[text.index(b"<svg") :]  # drop the XML prolog and DOCTYPE
    return RenderedPlot(svg, '"' + hashlib.sha256(svg).hexdigest()[:32] + '"')


def etag_matches(if_none_match: str | None, etag: str) -> bool:
    """Whether an If-None-Match header names this ETag (weak or strong), or is '*'."""
    if not if_none_match:
        return False
    tags = [tag.strip().removeprefix("W/") for tag in if_none_match.split(",")]
    return "*" in tags or etag in tags


def render_plot(name: str, raw: Mapping[str, object]) -> RenderedPlot:
    """Check the request, then draw it (or reuse the drawing from an earlier request)."""
    return _render(name, resolve(name, raw))
