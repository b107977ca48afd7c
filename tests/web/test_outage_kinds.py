"""Which errors mean a dependency is away: each library's own classes, wrapped or not."""

from __future__ import annotations

import errno
import sqlite3

import psycopg
import psycopg.errors
import pytest
import redis.exceptions
import sqlalchemy.exc
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.web.errors import install_error_handlers
from app.web.outages import outage_of


def _wrapped(orig: BaseException, kind: type[sqlalchemy.exc.DBAPIError]) -> BaseException:
    return kind("SELECT 1", {}, orig)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("error", "outage"),
    [
        (
            _wrapped(
                psycopg.OperationalError("connection refused"), sqlalchemy.exc.OperationalError
            ),
            "database",
        ),
        (
            _wrapped(
                psycopg.InterfaceError("the connection is closed"), sqlalchemy.exc.InterfaceError
            ),
            "database",
        ),
        (sqlalchemy.exc.DisconnectionError("connection lost while idle"), "database"),
        (psycopg.OperationalError("server closed the connection unexpectedly"), "database"),
        (
            _wrapped(
                sqlite3.OperationalError("database is locked"), sqlalchemy.exc.OperationalError
            ),
            "database",
        ),
        (
            _wrapped(
                sqlite3.OperationalError("database or disk is full"),
                sqlalchemy.exc.OperationalError,
            ),
            "disk",
        ),
        (
            _wrapped(
                psycopg.errors.DiskFull("could not extend file"), sqlalchemy.exc.OperationalError
            ),
            "disk",
        ),
        (OSError(errno.ENOSPC, "No space left on device"), "disk"),
        (OSError(errno.EDQUOT, "Disk quota exceeded"), "disk"),
        (redis.exceptions.ConnectionError("Error 111 connecting"), "queue"),
        (redis.exceptions.TimeoutError("Timeout reading from socket"), "queue"),
        (RuntimeError("while sending"), None),  # below: what is not an outage stays a 500
        (ValueError("a bug"), None),
        (OSError(errno.EACCES, "Permission denied"), None),
        (
            _wrapped(
                sqlite3.IntegrityError("UNIQUE constraint failed"), sqlalchemy.exc.IntegrityError
            ),
            None,
        ),
    ],
)
def test_each_kind_is_recognised(error: BaseException, outage: str | None) -> None:
    assert outage_of(error) == outage


def test_an_outage_raised_while_handling_another_error_is_still_found() -> None:
    try:
        try:
            raise redis.exceptions.ConnectionError("Connection refused")
        except redis.exceptions.ConnectionError as exc:
            raise RuntimeError("could not publish") from exc
    except RuntimeError as outer:
        assert outage_of(outer) == "queue"


@pytest.mark.parametrize(
    "error",
    [
        psycopg.OperationalError("server closed the connection unexpectedly"),
        psycopg.InterfaceError("the connection is closed"),
    ],
)
def test_a_driver_error_sqlalchemy_did_not_wrap_still_answers_503(error: Exception) -> None:
    """psycopg's classes have no handler of their own (the app on SQLite never imports it):
    the last-resort handler answers them as the outage they are."""
    app = FastAPI()
    install_error_handlers(app)

    @app.get("/api/boom")
    def boom() -> None:
        raise error

    with TestClient(app, raise_server_exceptions=False) as client:
        response = client.get("/api/boom")
    assert response.status_code == 503
    assert response.headers["retry-after"]
    assert "database" in response.json()["detail"]
