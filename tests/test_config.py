"""Cache folders are settings: an operator can move each one, and the defaults stay put."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.config import ROOT, Settings, get_settings
from app.grading.service import jax_cache_dir, mistakes_cache_dir


def test_defaults_keep_shared_caches_in_the_checkout_and_the_rest_in_the_data_dir(
    tmp_path: Path,
) -> None:
    settings = Settings(app_data_dir=tmp_path)
    assert settings.jax_cache_path == (ROOT / "var" / "jax-cache").resolve()
    assert settings.mistakes_cache_path == (ROOT / "var" / "mistakes-cache").resolve()
    assert settings.experiments_cache_path == tmp_path / "experiments-cache"
    assert settings.validate_cache_path == tmp_path / "validate-cache"


def test_each_cache_follows_its_environment_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("JAX", "MISTAKES", "EXPERIMENTS", "VALIDATE"):
        monkeypatch.setenv(f"{name}_CACHE_DIR", str(tmp_path / name.lower()))
    get_settings.cache_clear()
    try:
        settings = get_settings()
        assert jax_cache_dir() == tmp_path / "jax"
        assert mistakes_cache_dir() == tmp_path / "mistakes"
        assert settings.experiments_cache_path == tmp_path / "experiments"
        assert settings.validate_cache_path == tmp_path / "validate"
    finally:
        get_settings.cache_clear()
