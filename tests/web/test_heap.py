"""app/web/heap.py: start-up objects set aside from collections, let go on new content."""

from __future__ import annotations

import gc
import time
import weakref
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.web import heap


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
