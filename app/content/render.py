"""Markdown to safe HTML with server-side MathML, so pages need no JavaScript to show math."""

from __future__ import annotations

import hashlib
import html
import re
from functools import lru_cache
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
    "tr", "ul", "figure", "figcaption", "img",
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
    "img": {"src", "alt", "title", "width", "height"},
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
    return md


_MD = _build()


def sanitize(raw_html: str) -> str:
    """Allow-list clean: no script, no event handler, no javascript: URL survives."""
    return str(
        nh3.clean(
            raw_html,
            tags=HTML_TAGS | MATHML_TAGS,
            attributes=ATTRIBUTES,
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
