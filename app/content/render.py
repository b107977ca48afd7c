"""Markdown to safe HTML with server-side MathML, so pages need no JavaScript to show math."""

from __future__ import annotations

import hashlib
import html
import re
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import latex2mathml.converter
import nh3
from markdown_it import MarkdownIt
from mdit_py_plugins.admon import admon_plugin
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.front_matter import front_matter_plugin
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

from app.content.plot_blocks import figure_html, parse_block, plot_error_html
from app.content.plots import PlotError
from app.content.render_cache import KeptRenders, renderer_key

MATHML_TAGS = {
    "math", "mi", "mn", "mo", "ms", "mspace", "mtext", "mrow", "mfrac", "msqrt", "mroot",
    "msub", "msup", "msubsup", "munder", "mover", "munderover", "mtable", "mtr", "mtd",
    "mstyle", "mpadded", "mphantom", "menclose", "merror", "semantics", "mmultiscripts",
    "mprescripts", "none",
}  # fmt: skip
HTML_TAGS = {
    "a", "abbr", "b", "blockquote", "br", "code", "dd", "del", "details", "div", "dl", "dt",
    "em", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "i", "kbd", "li", "ol", "p", "pre", "s",
    "span", "strong", "sub", "summary", "sup", "table", "tbody", "td", "tfoot", "th", "thead",
    "tr", "ul", "figure", "figcaption", "img", "form", "label", "input", "button",
}  # fmt: skip
MATHML_ATTRS = {
    "display", "mathvariant", "stretchy", "fence", "separator", "lspace", "rspace", "accent",
    "accentunder", "columnalign", "rowalign", "columnspacing", "rowspacing", "width", "height",
    "depth", "linethickness", "notation", "displaystyle", "scriptlevel", "minsize", "maxsize",
    "movablelimits", "form", "symmetric", "largeop", "columnlines", "rowlines", "frame",
}  # fmt: skip
ATTRIBUTES: dict[str, set[str]] = {
    **{tag: set(MATHML_ATTRS) for tag in MATHML_TAGS},
    "a": {"href", "title"},
    "img": {"src", "alt", "title", "width", "height", "loading", "class"},
    "figure": {"class", "data-plot"},
    "form": {"class", "method", "action", "data-plot"},
    "label": {"class"},
    "input": {"type", "name", "value", "min", "max", "step", "required"},
    "button": {"type"},
    "th": {"class"},
    "td": {"class"},
    "ol": {"start"},
    "code": {"class"},
    "pre": {"class"},
    "span": {"class"},
    "div": {"class"},
    "p": {"class"},
    "h1": {"id"},
    "h2": {"id"},
    "h3": {"id"},
}
ATTRIBUTES["math"] = ATTRIBUTES["math"] | {"xmlns"}
_PLOT_URL = re.compile(r"/plots/[a-z0-9-]+\.svg(\?[A-Za-z0-9_=&,%.+-]*)?")
_SLUG = re.compile(r"[a-z0-9-]+")
# Values the plot figure needs; anything else in these attributes is dropped. Images may only
# come from the plot route, so no markdown can make a reader's browser fetch another URL.
_ATTRIBUTE_RULES: dict[tuple[str, str], Callable[[str], bool]] = {
    ("img", "src"): lambda v: _PLOT_URL.fullmatch(v) is not None,
    ("img", "loading"): lambda v: v == "lazy",
    ("form", "action"): lambda v: _PLOT_URL.fullmatch(v) is not None and "?" not in v,
    ("form", "method"): lambda v: v == "get",
    ("form", "data-plot"): lambda v: _SLUG.fullmatch(v) is not None,
    ("figure", "data-plot"): lambda v: _SLUG.fullmatch(v) is not None,
    ("input", "type"): lambda v: v in {"number", "hidden"},
    ("input", "name"): lambda v: re.fullmatch(r"[A-Za-z_]+", v) is not None,
    ("button", "type"): lambda v: v == "submit",
}
_FORMATTER = HtmlFormatter(cssclass="highlight", nowrap=True)
_ALIGN_RE = re.compile(r'style="text-align:(left|center|right)"')


def pygments_css() -> str:
    """Stylesheet for highlighted code; served by the app rather than inlined."""
    return str(_FORMATTER.get_style_defs(".highlight"))  # type: ignore[no-untyped-call]


def _math(latex: str, options: dict[str, Any]) -> str:
    display = bool(options.get("display_mode"))
    try:
        return str(latex2mathml.converter.convert(latex, display="block" if display else "inline"))
    except Exception:
        return f'<code class="math-error">{html.escape(latex)}</code>'


def _highlight(code: str, lang: str, _attrs: Any) -> str:
    try:
        lexer = get_lexer_by_name(lang or "text")
    except ClassNotFound:
        lexer = get_lexer_by_name("text")
    body = highlight(code, lexer, _FORMATTER)
    return f'<pre class="highlight"><code class="language-{html.escape(lang)}">{body}</code></pre>'


def _is_plot(info: str) -> bool:
    return info.strip().split(maxsplit=1)[:1] == ["plot"]


def _plot_html(source: str) -> str:
    try:
        block = parse_block(source)
    except PlotError as exc:
        return plot_error_html(str(exc))
    caption = _MD.renderInline(block.caption) if block.caption else ""
    return figure_html(block, caption)


def _build() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "highlight": _highlight})
    md.enable("table").enable("strikethrough")
    md.use(front_matter_plugin).use(admon_plugin)
    md.use(
        dollarmath_plugin,
        allow_labels=False,
        allow_space=True,
        allow_digits=False,
        double_inline=True,
        renderer=_math,
    )
    code_fence = md.renderer.rules["fence"]  # type: ignore[attr-defined]

    def fence(_self: Any, tokens: Sequence[Any], idx: int, options: Any, env: Any) -> str:
        token = tokens[idx]
        if _is_plot(token.info):
            return _plot_html(token.content)
        return str(code_fence(tokens, idx, options, env))

    md.add_render_rule("fence", fence)
    return md


_MD = _build()
# Finding fences needs the blocks only: the same parser without its inline pass, which was half
# of every course load's parsing (each lesson and exercise text at each start, issue 54).
_BLOCKS = _build().disable("inline")


def plot_fences(text: str) -> list[tuple[int, str]]:
    """(1-based line of the opening fence, YAML body) for every ```plot block in the markdown."""
    if "plot" not in text:  # no fence's info string can start with it
        return []
    return [
        (token.map[0] + 1, token.content)
        for token in _BLOCKS.parse(text)
        if token.type == "fence" and token.map and _is_plot(token.info)
    ]


def _filter_attribute(tag: str, name: str, value: str) -> str | None:
    rule = _ATTRIBUTE_RULES.get((tag, name))
    return value if rule is None or rule(value) else None


def sanitize(raw_html: str) -> str:
    """Allow-list clean: no script, no event handler, no javascript: URL survives."""
    return str(
        nh3.clean(
            raw_html,
            tags=HTML_TAGS | MATHML_TAGS,
            attributes=ATTRIBUTES,
            attribute_filter=_filter_attribute,
            url_schemes={"http", "https", "mailto"},
            link_rel="noopener noreferrer",
            strip_comments=True,
        )
    )


@lru_cache(maxsize=512)
def _render_cached(_digest: str, text: str) -> str:
    # CSP forbids inline styles, so table alignment becomes a class.
    return sanitize(_ALIGN_RE.sub(r'class="align-\1"', _MD.render(text)))


def render_markdown(text: str) -> str:
    """Render trusted-but-fallible markdown; cached by content hash so reloads are free."""
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return _render_cached(digest, text)


# Every app module whose code shapes the HTML (a test checks the list against the imports).
RENDERER_MODULES = (
    "app.content.attention_figures",
    "app.content.plot_blocks",
    "app.content.plot_figures",
    "app.content.plots",
    "app.content.render",
    "app.yamlio",
)
_kept: KeptRenders | None = None


def keep_rendered_content(directory: Path | None) -> None:
    """Keep content files' rendered markdown under `directory` (None: in memory only)."""
    global _kept
    _kept = None if directory is None else KeptRenders(directory / renderer_key(RENDERER_MODULES))


def render_content(text: str) -> str:
    """A content file's markdown (lesson, statement, hint): as `render_markdown`, and kept on
    disk across restarts once `keep_rendered_content` named a place (issue 54)."""
    kept = _kept
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    if kept is None:
        return _render_cached(digest, text)
    html = kept.get(digest)
    if html is None:
        html = _render_cached(digest, text)
        kept.put(digest, html)
    return html
