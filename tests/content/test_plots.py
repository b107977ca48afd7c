"""Lesson plots: right numbers, valid and repeatable SVG, a cached route, safe figure HTML."""

from __future__ import annotations

import math
import time
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest
from fastapi.testclient import TestClient

from app.authoring.validate import plot_drawing_problems
from app.config import ROOT
from app.content import plots
from app.content.loader import load_course
from app.content.plot_blocks import parse_block
from app.content.plot_figures import (
    alibi_bias,
    alibi_heads_shown,
    learned_table,
    rope_theta,
    rotate,
    sinusoidal_similarity,
)
from app.content.plots import (
    PLOTS,
    PlotError,
    alibi_slopes,
    render_plot,
    resolve,
    sinusoidal_table,
)
from app.content.render import plot_fences, render_markdown, sanitize
from tests.content.test_render import executable_parts

SVG_NS = "{http://www.w3.org/2000/svg}"
SMALL = {
    "sinusoidal-heatmap": {"max_len": "16", "d_model": "32"},
    "sinusoidal-curves": {"max_len": "20", "d_model": "16", "dims": "0,1,6"},
    "sinusoidal-similarity": {"max_len": "20", "d_model": "16"},
    "learned-table": {"max_len": "16", "d_model": "24"},
    "rope-rotation": {"d_model": "16", "positions": "0,2,5", "pair": "3"},
    "alibi-bias": {"heads": "4", "T": "8"},
    "attention-scale": {"max_dk": "16", "keys": "4"},
    "attention-heads": {"T": "6", "real": "4"},
    "attention-masks": {"T": "6", "W": "3", "sinks": "1"},
}


class _Tags(HTMLParser):
    """Every start tag with its attributes and the tags open around it."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.found: list[tuple[str, dict[str, str | None], tuple[str, ...]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found.append((tag, dict(attrs), tuple(self.stack)))
        if tag not in {"img", "input", "br", "hr"}:
            self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in self.stack:
            while self.stack.pop() != tag:
                pass


def tags(html: str, name: str) -> list[tuple[dict[str, str | None], tuple[str, ...]]]:
    parser = _Tags()
    parser.feed(html)
    return [(attrs, around) for tag, attrs, around in parser.found if tag == name]


def fence(body: str) -> str:
    return f"Before.\n\n```plot\n{body}```\n\nAfter.\n"


# --------------------------------------------------------------------------- the numbers


def test_sinusoidal_table_matches_the_formula() -> None:
    table = sinusoidal_table(50, 128)
    assert table.shape == (50, 128)
    for p in (0, 1, 7, 49):
        assert table[p, 0] == pytest.approx(math.sin(p))
        assert table[p, 1] == pytest.approx(math.cos(p))
    for p, i in ((5, 10), (31, 40), (49, 63)):
        angle = p / 10000 ** (2 * i / 128)
        assert table[p, 2 * i] == pytest.approx(math.sin(angle))
        assert table[p, 2 * i + 1] == pytest.approx(math.cos(angle))
    # Each sin/cos pair is a point on the unit circle.
    assert np.allclose(table[:, 0::2] ** 2 + table[:, 1::2] ** 2, 1.0)
    with pytest.raises(ValueError, match="even"):
        sinusoidal_table(4, 7)


def test_similarity_depends_only_on_offset_and_is_symmetric() -> None:
    offsets, dots, anchor = sinusoidal_similarity(40, 64)
    assert anchor == 20 and offsets[0] == -20 and offsets[-1] == 19
    assert dots[anchor] == pytest.approx(32.0)  # d_model/2 pairs of sin² + cos²
    for k in range(1, 20):
        assert dots[anchor + k] == pytest.approx(dots[anchor - k])
    assert dots.max() == pytest.approx(dots[anchor])


def test_alibi_slopes_for_eight_heads_halve_from_one_half() -> None:
    assert np.allclose(alibi_slopes(8), [1 / 2**k for k in range(1, 9)])
    assert alibi_slopes(1)[0] == pytest.approx(1 / 256)


def test_alibi_bias_is_causal_and_linear_in_distance() -> None:
    bias = alibi_bias(0.25, 5)
    assert np.all(np.diag(bias) == 0)
    assert bias[4, 1] == pytest.approx(-0.75) and bias[3, 0] == pytest.approx(-0.75)
    assert np.isnan(bias[np.triu_indices(5, k=1)]).all()
    assert alibi_heads_shown(8) == [1, 3, 6, 8] and alibi_heads_shown(2) == [1, 2]


def test_learned_table_is_fixed_noise_with_the_stated_spread() -> None:
    table = learned_table(128, 256)
    assert np.array_equal(table, learned_table(128, 256))
    assert abs(table.mean()) < 0.001 and table.std() == pytest.approx(0.02, rel=0.02)


def test_rope_rotation_speeds_and_lengths() -> None:
    assert rope_theta(64, 0) == 1.0
    assert rope_theta(64, 16) == pytest.approx(10000**-0.5)
    x, y = rotate((1.0, 0.0), math.pi / 2)
    assert (x, y) == (pytest.approx(0.0, abs=1e-12), pytest.approx(1.0))
    assert math.hypot(*rotate((0.6, 0.8), 2.7)) == pytest.approx(1.0)


# --------------------------------------------------------------------------- parameters


@pytest.mark.parametrize(
    ("name", "raw", "message"),
    [
        ("sinusoidal-heatmap", {"d_model": "7"}, "d_model must be an even whole number"),
        ("sinusoidal-heatmap", {"d_model": 2048}, "from 2 to 1024; got 2048"),
        ("sinusoidal-heatmap", {"max_len": 0}, "max_len must be"),
        ("sinusoidal-heatmap", {"max_len": "1.5"}, "whole number"),
        ("sinusoidal-heatmap", {"max_len": True}, "whole number"),
        ("sinusoidal-heatmap", {"colour": "red"}, "has no parameter 'colour'"),
        ("sinusoidal-curves", {"d_model": 8, "dims": [0, 9]}, "9 is not a dimension"),
        ("sinusoidal-curves", {"dims": list(range(7))}, "1 to 6 numbers"),
        ("sinusoidal-curves", {"dims": [1, 1]}, "twice"),
        ("rope-rotation", {"positions": [0, 9]}, "from 0 to 8"),
        ("rope-rotation", {"d_model": 8, "pair": 4}, "pair must be below d_model/2 = 4"),
        ("alibi-bias", {"heads": 17}, "heads must be a whole number from 1 to 16"),
        ("alibi-bias", {"T": 1}, "T must be"),
    ],
)
def test_bad_parameters_are_refused_with_the_reason(
    name: str, raw: dict[str, object], message: str
) -> None:
    with pytest.raises(PlotError, match=message):
        resolve(name, raw)


def test_unknown_plot_lists_the_known_ones() -> None:
    with pytest.raises(plots.UnknownPlot, match="Known plots: sinusoidal-heatmap"):
        resolve("spiral", {})


def test_query_strings_and_yaml_values_resolve_to_the_same_key() -> None:
    from_yaml = resolve("sinusoidal-curves", {"d_model": 16, "dims": [6, 0]})
    from_query = resolve("sinusoidal-curves", {"dims": "0,6", "d_model": "16"})
    assert from_yaml == from_query == (("max_len", 64), ("d_model", 16), ("dims", (0, 6)))
    assert dict(resolve("sinusoidal-curves", {"d_model": 128}))["dims"] == (0, 1, 32, 64)


# --------------------------------------------------------------------------- SVG output


@pytest.mark.parametrize("name", sorted(PLOTS))
def test_every_plot_is_valid_repeatable_svg(name: str) -> None:
    first = render_plot(name, SMALL[name])
    plots._render.cache_clear()
    second = render_plot(name, SMALL[name])
    assert first is not second and first.svg == second.svg and first.etag == second.etag
    assert (
        first.svg.startswith(b"<svg") and b"<?xml" not in first.svg and b"DOCTYPE" not in first.svg
    )
    root = ET.fromstring(first.svg)
    assert root.tag == f"{SVG_NS}svg"
    # matplotlib sizes the SVG in points (72 per inch); the <img> tag uses CSS pixels (96).
    width, height = PLOTS[name].pixels
    assert float(root.get("width", "").removesuffix("pt")) * 4 / 3 == pytest.approx(width)
    assert float(root.get("height", "").removesuffix("pt")) * 4 / 3 == pytest.approx(height, abs=1)
    assert not [el.tag for el in root.iter() if el.tag.endswith(("script", "foreignObject"))]


def test_render_is_cached_by_normalised_parameters() -> None:
    one = render_plot("alibi-bias", {"heads": "4", "T": "8"})
    assert render_plot("alibi-bias", {"T": 8, "heads": 4}) is one


def test_largest_heatmap_is_small_and_quick() -> None:
    plots._render.cache_clear()
    started = time.process_time()
    plot = render_plot("sinusoidal-heatmap", {"max_len": 512, "d_model": 1024})
    cpu = time.process_time() - started
    assert len(plot.svg) < 300_000
    assert cpu < 1.0  # measured near 0.12 s of CPU; generous for a shared machine
    assert len(render_plot("learned-table", {"max_len": 512, "d_model": 1024}).svg) < 300_000


# --------------------------------------------------------------------------- the route


def test_route_serves_svg_with_cache_headers_and_304(client: TestClient) -> None:
    url = "/plots/sinusoidal-heatmap.svg?max_len=16&d_model=32"
    response = client.get(url)
    assert response.status_code == 200
    assert response.headers["content-type"] == "image/svg+xml"
    assert response.headers["cache-control"] == "public, max-age=86400"
    assert "default-src 'none'" in response.headers["content-security-policy"]
    assert response.headers["x-content-type-options"] == "nosniff"
    ET.fromstring(response.content)
    etag = response.headers["etag"]
    again = client.get(url, headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == etag
    assert client.get(url, headers={"If-None-Match": '"other"'}).status_code == 200


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("d_model=7", "d_model must be an even whole number from 2 to 1024; got 7."),
        ("d_model=4096", "d_model must be an even whole number from 2 to 1024; got 4096."),
        ("d_model=4&d_model=6", "d_model is given more than once."),
        ("size=3", "Plot 'sinusoidal-heatmap' has no parameter 'size'"),
    ],
)
def test_route_refuses_bad_parameters_with_json(
    client: TestClient, query: str, message: str
) -> None:
    response = client.get(f"/plots/sinusoidal-heatmap.svg?{query}", headers={"Accept": "image/*"})
    assert response.status_code == 422
    assert response.headers["content-type"] == "application/json"
    assert response.json()["detail"].startswith(message)


def test_route_answers_404_for_an_unknown_plot(client: TestClient) -> None:
    response = client.get("/plots/spiral.svg")
    assert response.status_code == 404
    assert "no plot called 'spiral'" in response.json()["detail"]


# --------------------------------------------------------------------------- markdown


def test_plot_fence_becomes_an_image_in_a_figure() -> None:
    html = render_markdown(fence('name: sinusoidal-heatmap\nmax_len: 64\ncaption: "Rows: $p$"\n'))
    [(img, around)] = tags(html, "img")
    assert "figure" in around
    assert img["src"] == "/plots/sinusoidal-heatmap.svg?max_len=64"
    assert (img["width"], img["height"]) == ("672", "432") and img["alt"] == "Rows: $p$"
    assert len(tags(html, "figcaption")) == 1
    assert "<math" in html.split("<figcaption>")[1]
    assert tags(html, "form") == [] and tags(html, "svg") == []


def test_alt_text_describes_the_plot_when_there_is_no_caption() -> None:
    html = render_markdown(fence("name: alibi-bias\nheads: 4\nT: 8\n"))
    [(img, _)] = tags(html, "img")
    assert img["alt"] is not None and img["alt"].startswith("ALiBi attention bias for 8 tokens")


def test_interactive_plot_gets_a_form_that_works_without_javascript() -> None:
    html = render_markdown(fence("name: sinusoidal-curves\ndims: [0, 5]\ninteractive: true\n"))
    [(form, around)] = tags(html, "form")
    assert "figure" in around
    assert form["action"] == "/plots/sinusoidal-curves.svg" and form["method"] == "get"
    assert form["data-plot"] == "sinusoidal-curves"
    inputs = {attrs["name"]: attrs for attrs, _ in tags(html, "input")}
    assert inputs["d_model"] == {
        "type": "number",
        "name": "d_model",
        "value": "128",
        "min": "2",
        "max": "1024",
        "step": "2",
        "required": "",
    }
    assert inputs["max_len"]["step"] == "1"
    assert inputs["dims"]["type"] == "hidden" and inputs["dims"]["value"] == "0,5"
    assert [attrs["type"] for attrs, _ in tags(html, "button")] == ["submit"]
    labels = tags(html, "label")
    assert len(labels) == 2 and all("form" in around for _, around in labels)


def test_malicious_caption_is_escaped() -> None:
    body = (
        "name: sinusoidal-heatmap\n"
        'caption: \'<script>alert(1)</script> " onerror="alert(2)" <img src=x onerror=alert(3)>\'\n'
    )
    html = render_markdown(fence(body))
    assert executable_parts(html) == []
    assert "<script" not in html and "&lt;script&gt;" in html
    [(img, _)] = tags(html, "img")
    assert img["alt"] is not None and img["alt"].startswith("<script>alert(1)</script>")
    assert set(img) == {"class", "src", "alt", "width", "height", "loading"}


def test_sanitiser_keeps_only_plot_urls_and_safe_form_values() -> None:
    html = sanitize(
        '<img src="https://evil.example/x.png"><img src="/plots/a-b.svg?x=1">'
        '<form action="https://evil.example/" method="post" data-plot="x" data-evil="1">'
        '<input type="password" name="p"><button type="button" formaction="/x">b</button></form>'
    )
    imgs = [attrs for attrs, _ in tags(html, "img")]
    assert imgs == [{}, {"src": "/plots/a-b.svg?x=1"}]
    [(form, _)] = tags(html, "form")
    assert form == {"data-plot": "x"}
    assert [attrs for attrs, _ in tags(html, "input")] == [{"name": "p"}]
    assert [attrs for attrs, _ in tags(html, "button")] == [{}]


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("name: [unclosed\n", "not valid YAML"),
        ("name: spiral\n", "no plot called 'spiral'"),
        ("name: sinusoidal-heatmap\nd_model: 7\n", "d_model must be an even whole number"),
        ("just text\n", "must be YAML keys and values"),
        ("name: alibi-bias\ninteractive: maybe\n", "interactive must be true or false"),
    ],
)
def test_broken_block_shows_a_visible_message_not_an_error(body: str, reason: str) -> None:
    html = render_markdown(fence(body))
    assert "<p>Before.</p>" in html and "<p>After.</p>" in html
    assert '<div class="plot-error"><p><strong>Plot unavailable:</strong>' in html
    assert reason in html
    assert tags(html, "img") == []


def test_parse_block_reports_the_line_inside_the_block() -> None:
    with pytest.raises(PlotError) as info:
        parse_block("name: sinusoidal-heatmap\nmax_len: 8\nd_model: 9\n")
    assert info.value.line == 3
    block = parse_block("name: rope-rotation\npositions: [3, 1]\n")
    assert block.explicit == {"positions": (1, 3)} and block.params["pair"] == 1


def test_fences_are_found_with_their_lines() -> None:
    text = (
        "# T\n\n```python\nx\n```\n\n```plot\nname: alibi-bias\n```\n\n"
        "```plot  extra\nname: x\n```\n"
    )
    assert plot_fences(text) == [(7, "name: alibi-bias\n"), (11, "name: x\n")]


def test_fences_found_from_the_blocks_alone_are_those_of_the_whole_parse() -> None:
    # plot_fences skips the inline pass (half of a course load's parsing, issue 54): over every
    # markdown file of both courses, and fences inside admonitions, lists, math and quotes.
    from app.content import render

    texts = [
        path.read_text()
        for root in ("lessons", "exercises", "courses")
        for path in sorted((ROOT / root).rglob("*.md"))
    ]
    texts.append(
        "> ```plot\n> name: q\n> ```\n\n- item\n\n  ```plot\n  name: l\n  ```\n\n"
        "$$\n```plot\n$$\n\n:::{note}\n```plot\nname: a\n```\n:::\n\n`` ```plot `` inline\n"
    )
    whole = [
        [
            (token.map[0] + 1, token.content)
            for token in render._MD.parse(text)
            if token.type == "fence" and token.map and render._is_plot(token.info)
        ]
        for text in texts
    ]
    assert sum(map(len, whole)) > 10
    assert [plot_fences(text) for text in texts] == whole


# --------------------------------------------------------------------------- content problems


LESSON = """---
slug: plots
title: Plots
order: 1
summary: Pictures.
---
# Plots

```plot
name: sinusoidal-heatmap
max_len: 64
d_model: 127
```

```plot
name: alibi-bias
heads: [oops
```

```plot
name: learned-table
```
"""


def test_broken_plot_blocks_become_problems_with_file_and_line(tmp_path: Path) -> None:
    (tmp_path / "lessons").mkdir()
    (tmp_path / "lessons" / "01-plots.md").write_text(LESSON, encoding="utf-8")
    course = load_course(tmp_path / "lessons", tmp_path / "exercises")
    assert [les.meta.slug for les in course.lessons] == ["plots"]  # the lesson still loads
    found = sorted((p.path, p.line, p.message) for p in course.problems)
    assert [(path, line) for path, line, _ in found] == [
        ("lessons/01-plots.md", 12),
        ("lessons/01-plots.md", 17),
    ]
    assert "d_model must be an even whole number from 2 to 1024; got 127" in found[0][2]
    assert "not valid YAML" in found[1][2]
    html = course.lessons[0].html
    assert html.count("Plot unavailable:") == 2
    assert 'src="/plots/learned-table.svg"' in html


def test_course_plots_parse_and_draw() -> None:
    course = load_course(ROOT / "lessons", ROOT / "exercises")
    assert [p for p in course.problems if "plot" in p.message] == []
    assert plot_drawing_problems(course) == []


def test_lesson_page_shows_its_plots(client: TestClient) -> None:
    with_plots = [
        path for path in sorted((ROOT / "lessons").glob("*.md")) if "```plot" in path.read_text()
    ]
    assert with_plots, "no lesson uses a plot fence any more"
    course = load_course(ROOT / "lessons", ROOT / "exercises")
    # By name: a test's course copy links these lessons, and a load of the same files may be
    # that copy's Course (app/content/loader.py shares byte-identical loads).
    lesson = next(les for les in course.lessons if les.path.name == with_plots[0].name)
    page = client.get(f"/lessons/{lesson.meta.slug}")
    assert page.status_code == 200
    srcs = [attrs["src"] for attrs, around in tags(page.text, "img") if "figure" in around]
    assert srcs and all(src and src.startswith("/plots/") for src in srcs)
    first = client.get(str(srcs[0]))
    assert first.status_code == 200 and first.headers["content-type"] == "image/svg+xml"
