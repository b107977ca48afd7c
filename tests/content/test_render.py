"""Markdown rendering: features work, and nothing executable survives sanitising."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

from app.content.render import render_markdown, sanitize

FORBIDDEN_TAGS = {"script", "iframe", "object", "embed", "style", "svg", "link", "meta", "base"}


class _Audit(HTMLParser):
    """Collects every executable construct a browser would act on."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in FORBIDDEN_TAGS:
            self.found.append(f"<{tag}>")
        for name, value in attrs:
            if name.startswith("on") or name in {"style", "srcdoc", "formaction"}:
                self.found.append(f"{tag}[{name}]")
            if value and "javascript:" in value.replace(" ", "").lower():
                self.found.append(f"{tag}[{name}={value}]")


def executable_parts(html: str) -> list[str]:
    """What in this HTML could run script or restyle the page."""
    audit = _Audit()
    audit.feed(html)
    return audit.found


def test_inline_and_display_math_become_mathml() -> None:
    html = render_markdown("The table is $T \\times d$.\n\n$$\\frac{p}{10000^{2i/d}}$$\n")
    assert '<math xmlns="http://www.w3.org/1998/Math/MathML" display="inline">' in html
    assert 'display="block"' in html
    assert "<mfrac>" in html and "<mo>×</mo>" in html


def test_tables_admonitions_and_highlighted_code() -> None:
    text = (
        "| model | rows |\n|---|--:|\n| BERT | 512 |\n\n"
        '!!! tip "Remember"\n    Slices keep the axis.\n\n'
        "```python\ntable[:T]\n```\n"
    )
    html = render_markdown(text)
    assert "<table>" in html and '<td class="align-right">512</td>' in html
    assert '<div class="admonition tip">' in html and "Remember" in html
    assert '<pre class="highlight"><code class="language-python">' in html
    assert '<span class="n">table</span>' in html


@pytest.mark.parametrize(
    "source",
    [
        "<script>alert(1)</script>",
        '<img src="x" onerror="alert(1)">',
        "[click](javascript:alert(1))",
        "[click](JaVaScRiPt:alert(1))",
        "[ref][r]\n\n[r]: javascript:alert(1)",
        "<javascript:alert(1)>",
        '<a href="javascript:alert(1)">x</a>',
        "![pic](javascript:alert(1))",
        '<div onclick="alert(1)">x</div>',
        "$\\text{<script>alert(1)</script>}$",
        "$$\\text{<img src=x onerror=alert(1)>}$$",
        "$\\href{javascript:alert(1)}{click}$",
        "$\\mathrm{<svg onload=alert(1)>}$",
        "<iframe src='https://example.org'></iframe>",
        "<style>body{display:none}</style>",
    ],
)
def test_nothing_executable_survives(source: str) -> None:
    html = render_markdown(source)
    assert executable_parts(html) == [], html


def test_audit_catches_what_it_should() -> None:
    assert executable_parts('<a href="javascript:x">a</a><img onerror="y">') == [
        "a[href=javascript:x]",
        "img[onerror]",
    ]


def test_raw_html_is_shown_as_text_not_markup() -> None:
    html = render_markdown("a <b>bold</b> claim")
    assert "&lt;b&gt;bold&lt;/b&gt;" in html


def test_sanitize_keeps_safe_links_and_adds_rel() -> None:
    html = sanitize('<a href="https://example.org/x" onclick="y()">ok</a>')
    assert 'href="https://example.org/x"' in html
    assert "onclick" not in html and 'rel="noopener noreferrer"' in html


def test_bad_latex_degrades_to_visible_source() -> None:
    html = render_markdown("$\\frac{1}{$ and more")
    assert executable_parts(html) == []
    assert "frac" in html


def test_rendering_is_cached_by_content() -> None:
    first = render_markdown("# cached $x$")
    assert render_markdown("# cached $x$") is first
