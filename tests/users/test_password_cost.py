"""Password hashes: argon2 at its standard cost unless a test suite asks for less (not in
production)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from app.config import Settings, get_settings
from app.users.service import hash_password, password_matches

STANDARD = "$argon2id$v=19$m=65536,t=3,p=4$"
LOW = "$argon2id$v=19$m=1024,t=1,p=1$"


def _hash_at(cost: str, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("PASSWORD_HASH_COST", cost)
    get_settings.cache_clear()
    try:
        return hash_password("correct horse battery")
    finally:
        get_settings.cache_clear()


def test_new_hashes_use_the_configured_cost_and_either_cost_verifies(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    standard = _hash_at("standard", monkeypatch)
    low = _hash_at("low", monkeypatch)
    assert standard.startswith(STANDARD) and low.startswith(LOW)
    monkeypatch.setenv("PASSWORD_HASH_COST", "low")
    get_settings.cache_clear()
    try:  # the setting decides new hashes only: a stored hash is checked at its own cost
        for stored in (standard, low):
            assert password_matches(password="correct horse battery", password_hash=stored)
            assert not password_matches(password="correct horse batterY", password_hash=stored)
    finally:
        get_settings.cache_clear()


def test_the_default_is_the_standard_cost(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PASSWORD_HASH_COST", raising=False)
    assert Settings(_env_file=None).password_hash_cost == "standard"


def test_production_refuses_the_low_cost() -> None:
    with pytest.raises(ValidationError, match="PASSWORD_HASH_COST=low is for test suites"):
        Settings(
            _env_file=None, app_env="production", secret_key="x" * 40, password_hash_cost="low"
        )
