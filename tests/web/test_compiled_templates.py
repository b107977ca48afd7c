"""Compiled templates kept in the data dir: a restart loads them instead of compiling (issue 54)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from jinja2 import DictLoader, Environment

from app.config import get_settings
from app.main import create_app
from app.web import templating
from app.web.templating import compile_templates, keep_compiled_templates, templates

PAGES = ("/", "/login", "/lessons/learned-absolute", "/exercises/rope-rotate")
RANDOM = re.compile(
    rb'(name="csrf_token" value="|csrf-token" content="|name="client_id" value=")[^"]+'
)


@pytest.fixture
def fresh_memory() -> Iterator[None]:
    """Templates dropped from the process's memory, as in a restarted server."""
    cache, before = templates.env.cache, templates.env.bytecode_cache
    templates.env.cache = {}
    try:
        yield
    finally:
        templates.env.cache, templates.env.bytecode_cache = cache, before


def _compiles(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names Jinja compiles from source from now on."""
    names: list[str] = []
    compile_source = templates.env.compile

    def counting(source: Any, name: str | None = None, *args: Any, **kwargs: Any) -> Any:
        names.append(str(name))
        return compile_source(source, name, *args, **kwargs)

    monkeypatch.setattr(templates.env, "compile", counting)
    return names


def _page(client: TestClient, path: str) -> bytes:
    response = client.get(path)
    assert response.status_code == 200
    return RANDOM.sub(rb"\1-", response.content)  # the tokens drawn for each page


@pytest.mark.usefixtures("fresh_memory")
def test_a_restarted_server_loads_its_templates_compiled_and_serves_the_same_pages(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    compiled = _compiles(monkeypatch)
    with TestClient(create_app()) as client:  # the first start compiles and keeps them
        first = [_page(client, path) for path in PAGES]
    count = len(compiled)
    assert count >= 70  # every page template
    kept = list(get_settings().template_cache_path.glob("*/*.cache"))
    assert len(kept) == len(set(compiled)), sorted(compiled)

    templates.env.cache = {}  # the restart: nothing in memory
    with TestClient(create_app()) as client:
        again = [_page(client, path) for path in PAGES]
    assert len(compiled) == count  # nothing compiled again
    for before, after in zip(first, again, strict=True):  # byte for byte, random tokens aside
        assert after == before, _first_difference(before, after)


def test_a_template_changed_since_is_compiled_again(tmp_path: Path) -> None:
    sources = {"page.html": "old {{ x }}"}
    env = Environment(loader=DictLoader(sources), autoescape=True)
    env.bytecode_cache = templating._CompiledTemplates(str(tmp_path))
    assert env.get_template("page.html").render(x=1) == "old 1"
    sources["page.html"] = "new {{ x }}"  # a deploy changed it
    env.cache = {}
    assert env.get_template("page.html").render(x=1) == "new 1"


def test_other_compiler_settings_keep_their_own_compiled_templates() -> None:
    plain = Environment(autoescape=True)
    assert templating._compiler_key(plain) == templating._compiler_key(Environment(autoescape=True))
    assert templating._compiler_key(plain) != templating._compiler_key(Environment())
    assert templating._compiler_key(plain) != templating._compiler_key(
        Environment(autoescape=True, trim_blocks=True)
    )


@pytest.mark.usefixtures("fresh_memory")
def test_a_cache_that_cannot_be_written_costs_only_time(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("where the cache directory should be")
    keep_compiled_templates(blocked / "template-cache")  # cannot make it: none used
    assert templates.env.bytecode_cache is None
    assert "templates are compiled at each start" in caplog.text

    gone = tmp_path / "gone"
    keep_compiled_templates(gone)
    for folder in gone.iterdir():  # the directory replaced by a file after the start (as root too)
        folder.rmdir()
        folder.write_text("not a directory")
    assert compile_templates() >= 70  # compiled and served; only not kept
    assert "could not keep a compiled template" in caplog.text


def _first_difference(before: bytes, after: bytes) -> str:
    at = next(i for i, (a, b) in enumerate(zip(before, after, strict=False)) if a != b)
    return f"first difference at {at}: {before[at - 80 : at + 80]!r} / {after[at - 80 : at + 80]!r}"
