"""Pages served from the remembered parts are the pages rendered anew, byte for byte (issue 54)."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from app.web import templating
from tests.users.helpers import logged_in_client

# What differs between two renders of one page anyway: the form token's nonce, the editor's id.
_PER_RENDER = re.compile(r'[A-Za-z0-9_\-]{16,}\.[A-Za-z0-9_\-]{16,}|name="client_id" value="[^"]*"')


def _pages(client: TestClient, lessons: bool = True) -> dict[str, bytes]:
    """Home, the exercise list, two exercises and (a first view of a lesson being a read that
    changes the home page) three lessons if LESSONS."""
    listed = client.get("/api/lessons").json()
    exercises = client.get("/api/exercises").json()
    paths = ["/", "/api/exercises"] + [ex["url"] for ex in exercises[:2]]
    paths += [les["url"] for les in listed[:3]] if lessons else []
    found = {}
    for path in paths:
        answer = client.get(path)
        assert answer.status_code == 200, path
        found[path] = _PER_RENDER.sub("TOKEN", answer.text).encode()
    return found


def test_a_page_from_remembered_parts_is_the_page_rendered_anew(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    # three standings: a visitor, a student who has read nothing, one who has read three lessons;
    # every page rendered anew for each first, then from one memory shared by all three
    cookies: dict[str, dict[str, str]] = {"visitor": {}}
    for who in ("student", "reader"):
        client.cookies.clear()
        logged_in_client(client, f"{who}@example.org")
        cookies[who] = dict(client.cookies)
        if who == "reader":
            _pages(client)  # reads the lessons: the home page shows them read
    monkeypatch.setattr(templating, "KEYED_MOST", 0)  # nothing remembered
    templating._KEYED.clear()
    fresh = {}
    for who, jar in cookies.items():
        client.cookies.clear()
        client.cookies.update(jar)
        fresh[who] = _pages(client, lessons=who != "student")  # the student reads nothing
    monkeypatch.setattr(templating, "KEYED_MOST", 4096)
    for _ in range(2):  # remembers, then answers from memory
        for who, jar in cookies.items():
            client.cookies.clear()
            client.cookies.update(jar)
            assert _pages(client, lessons=who != "student") == fresh[who], who
    assert templating._KEYED, "nothing was remembered"
    assert b"Not read yet" in fresh["student"]["/"] and b">Read<" in fresh["reader"]["/"]
