"""Templates are compiled at start-up, so the first class after a restart does not pay for it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from jinja2 import DictLoader

from app.config import ROOT
from app.main import create_app
from app.web import templating
from app.web.templating import compile_templates, fragment, keyed, templates


def test_every_page_template_is_compiled_when_the_app_starts(data_dir: Path) -> None:
    templates.env.cache.clear()  # type: ignore[union-attr]
    expected = {
        p.relative_to(ROOT / "templates").as_posix() for p in (ROOT / "templates").rglob("*.html")
    }
    with TestClient(create_app()):
        pass  # start-up and shut-down: shut-down waits for the compiling to finish
    cached = {key[1] for key in templates.env.cache}  # type: ignore[union-attr]
    assert expected and expected <= cached


def test_a_template_that_does_not_compile_is_logged_and_the_rest_are_compiled(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    loader = DictLoader({"good.html": "<p>{{ x }}</p>", "broken.html": "{% if %}"})
    monkeypatch.setattr(templates.env, "loader", loader)
    templates.env.cache.clear()  # type: ignore[union-attr]
    assert compile_templates() == 1
    assert "broken.html does not compile" in caplog.text
    templates.env.cache.clear()  # type: ignore[union-attr]


class _View:
    def __init__(self, text: str) -> None:
        self.text = text


def test_a_fragment_is_rendered_once_per_item_and_again_for_a_changed_template(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    loader = DictLoader({"frag.html": "<b>{{ item.text }}</b>"})
    monkeypatch.setattr(templates.env, "loader", loader)
    templates.env.cache.clear()  # type: ignore[union-attr]
    try:
        one, two = _View("<one>"), _View("two")
        html = fragment(one, "frag.html")
        assert html == "<b>&lt;one&gt;</b>"  # escaped as in any template
        one.text = "changed"  # views are immutable; this shows the HTML is remembered
        assert fragment(one, "frag.html") is html
        assert fragment(two, "frag.html") == "<b>two</b>"
        loader.mapping["frag.html"] = "<i>{{ item.text }}</i>"
        templates.env.cache.clear()  # type: ignore[union-attr]  # as `serve --reload` would
        assert fragment(one, "frag.html") == "<i>changed</i>"
    finally:
        templates.env.cache.clear()  # type: ignore[union-attr]


@dataclass(frozen=True)
class _Standing:
    read: bool


def test_a_keyed_fragment_is_rendered_once_per_distinct_values(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    loader = DictLoader(
        {"item.html": "<b>{{ item.text }}</b>{{ 'read' if lp and lp.read }}", "v.html": "{{ v }}"}
    )
    monkeypatch.setattr(templates.env, "loader", loader)
    templates.env.cache.clear()  # type: ignore[union-attr]
    try:
        one, two = _View("<one>"), _View("two")
        html = keyed("item.html", item=one, lp=_Standing(read=False))
        assert html == "<b>&lt;one&gt;</b>"  # escaped as in any template
        one.text = "changed"  # content objects are immutable; this shows the HTML is remembered
        # an equal standing (a new object, as each request builds one) is the same entry
        assert keyed("item.html", item=one, lp=_Standing(read=False)) is html
        assert keyed("item.html", item=one, lp=_Standing(read=True)) == "<b>changed</b>read"
        assert keyed("item.html", item=two, lp=None) == "<b>two</b>"  # by identity: another item
        assert (keyed("v.html", v=1), keyed("v.html", v=True)) == ("1", "True")  # 1 == True
    finally:
        templates.env.cache.clear()  # type: ignore[union-attr]


def test_keyed_fragments_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    loader = DictLoader({"n.html": "{{ n }}"})
    monkeypatch.setattr(templates.env, "loader", loader)
    monkeypatch.setattr(templating, "KEYED_MOST", 10)
    templates.env.cache.clear()  # type: ignore[union-attr]
    try:
        for n in range(50):
            assert keyed("n.html", n=n) == str(n)
        assert len(templating._KEYED) <= 10
        assert keyed("n.html", n=3) == "3"  # evicted, rendered again
    finally:
        templates.env.cache.clear()  # type: ignore[union-attr]
