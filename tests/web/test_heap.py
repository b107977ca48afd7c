"""app/web/heap.py: start-up objects set aside from collections, let go on new content."""

from __future__ import annotations

import gc
import os
import socket
import time
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.web import heap
from tests.pyrun import last_json


class Node:
    """An object that can sit in a reference cycle."""

    other: Node | None = None


@pytest.fixture(autouse=True)
def unfrozen() -> Iterator[None]:
    """Every test leaves the test process's collector as it found it."""
    gc.unfreeze()
    yield
    gc.unfreeze()


def _cycle() -> weakref.ref[Node]:
    first, second = Node(), Node()
    first.other, second.other = second, first
    return weakref.ref(first)


def test_set_aside_objects_are_skipped_and_new_garbage_is_still_collected() -> None:
    kept = _cycle()  # garbage already: collected before anything is set aside
    heap.set_aside()
    assert kept() is None and gc.get_freeze_count() > 0
    later = _cycle()
    gc.collect()
    assert later() is None  # what requests make is collected as before


def test_set_aside_again_lets_a_cycle_of_old_content_go() -> None:
    old = Node()
    old.other = Node()
    old.other.other = old
    ref = weakref.ref(old)
    heap.set_aside()  # old content, alive and set aside
    del old  # replaced: its cycle is garbage now, but set aside
    gc.collect()
    assert ref() is not None
    heap.set_aside_again()
    assert ref() is None


def test_the_app_sets_its_start_up_aside_once_templates_are_compiled(data_dir: object) -> None:
    with TestClient(create_app()) as client:
        assert client.get("/healthz").status_code == 200
        deadline = time.monotonic() + 30
        while gc.get_freeze_count() == 0:
            assert time.monotonic() < deadline, "start-up was never set aside"
            time.sleep(0.05)


# `python -m app ...` as a terminal starts it, with uvicorn's run replaced by the app's start in
# this process (the factory, its lifespan, a /healthz) and the migration by a look.
_COMMAND = """
import gc, json, os, runpy, sys
import uvicorn
import app.migrate
seen = []
gc.callbacks.append(lambda phase, info: phase == "start" and seen.append(gc.isenabled()))
def look(where):
    paused = seen.count(False)
    return {where: {"on": gc.isenabled(), "collections": len(seen), "while paused": paused}}
def run(**options):
    state = look("before the app")
    if options.get("reload"):
        print(json.dumps(state))
        return
    from fastapi.testclient import TestClient
    from app.main import create_app
    with TestClient(create_app()) as client:
        assert client.get("/healthz").status_code == 200
    state.update(look("after its start"), frozen=gc.get_freeze_count())
    print(json.dumps(state))
uvicorn.run = run
def upgrade():
    print(json.dumps(look("in the command")), flush=True)
    os._exit(0)
app.migrate.upgrade_head = upgrade
sys.argv = ["app", *sys.argv[1:]]
seen.clear()
runpy.run_module("app", run_name="__main__", alter_sys=True)
"""


def _command(data_dir: Path, *argv: str) -> Any:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(APP_DATA_DIR=str(data_dir), POOL_WARM_ON_START="false")
    return last_json(_COMMAND, env=env, cwd=data_dir, args=argv)


def _free_port() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return str(sock.getsockname()[1])


def test_serve_starts_without_a_collection_and_collects_once_its_app_started(
    data_dir: Path,
) -> None:
    """The start's objects are made with collections paused (about 0.4 s of a 3 s start), and
    its app turns them back on with those objects set aside: a server never runs without them."""
    state = _command(data_dir, "serve", "--port", _free_port())
    assert state["before the app"] == {"on": False, "collections": 0, "while paused": 0}
    after = state["after its start"]
    assert after["on"] is True
    assert after["while paused"] == 0  # start-up's little garbage is set aside, not walked for
    assert state["frozen"] > 100_000


@pytest.mark.parametrize(
    "argv",
    [("migrate",), ("serve", "--reload", "--port", "0")],
    ids=["a command", "serve's reloading parent"],
)
def test_a_process_that_starts_no_app_collects_while_it_works(
    data_dir: Path, argv: tuple[str, ...]
) -> None:
    state = _command(data_dir, *argv)
    (where,) = state
    assert state[where]["on"] is True, where
