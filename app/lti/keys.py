"""The tool's RSA keys: kept in the data dir (mode 0600), served as a JWKS, rotated in two steps.

A rotation first publishes the next key while the current key keeps signing; LMSs that cache the
tool's key set pick the next key up when their cache expires. Only after
`lti_key_rotation_days` (or an explicit activation) does the next key sign; the retired key stays
published for the same delay, so whatever it signed still verifies.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import hashlib
import json
import os
import secrets
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.config import get_settings

if TYPE_CHECKING:  # loaded where a key is used: every start skips them (issue 54)
    from cryptography.hazmat.primitives.asymmetric import rsa

CURRENT = "private_key.pem"
NEXT = "next_key.pem"
PREVIOUS = "previous_key.pem"
STATE = "rotation.json"
LOCK = "rotation.lock"
DAY = 86400.0


class KeyRotationError(Exception):
    """A rotation step that cannot be done now; the message says what to do instead."""


@dataclass(frozen=True)
class ToolKey:
    """A private key and its key id (the RFC 7638 thumbprint of its public half)."""

    private: rsa.RSAPrivateKey
    kid: str

    def public_jwk(self) -> dict[str, Any]:
        """The public half as a JWK with kid, alg and use (not key_ops too: RFC 7517 §4.3)."""
        import jwt

        jwk: dict[str, Any] = json.loads(
            jwt.algorithms.RSAAlgorithm.to_jwk(self.private.public_key())
        )
        jwk.pop("key_ops", None)
        return {**jwk, "kid": self.kid, "alg": "RS256", "use": "sig"}


@dataclass(frozen=True)
class Rotation:
    """The published next key, whether this call made it, and when it starts signing."""

    key: ToolKey
    created: bool
    activates_at: float


def _thumbprint(key: rsa.RSAPrivateKey) -> str:
    import jwt

    jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(key.public_key()))
    canonical = json.dumps({k: jwk[k] for k in ("e", "kty", "n")}, separators=(",", ":"))
    digest = hashlib.sha256(canonical.encode()).digest()
    return base64.urlsafe_b64encode(digest).decode().rstrip("=")


def _new_pem() -> bytes:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


def _write_private(path: Path, data: bytes, *, replace: bool = False) -> None:
    """Write the file (owner-only) complete or not at all; unless replacing, keep one there."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    if replace:
        os.replace(tmp, path)
        return
    try:
        with contextlib.suppress(FileExistsError):  # another process made it first: keep theirs
            os.link(tmp, path)
    finally:
        tmp.unlink()


def _load(path: Path) -> ToolKey:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = serialization.load_pem_private_key(path.read_bytes(), password=None)
    if not isinstance(key, rsa.RSAPrivateKey):
        raise ValueError(f"{path} does not hold an RSA private key")
    return ToolKey(private=key, kid=_thumbprint(key))


def _key_dir() -> Path:
    folder = get_settings().lti_key_dir
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    return folder


def _delay() -> float:
    return get_settings().lti_key_rotation_days * DAY


def _read_state(folder: Path) -> dict[str, float]:
    try:
        raw = json.loads((folder / STATE).read_text())
    except (OSError, ValueError):
        return {}
    if not isinstance(raw, dict):
        return {}
    return {k: float(v) for k, v in raw.items() if isinstance(v, int | float)}


def _write_state(folder: Path, state: dict[str, float]) -> None:
    tmp = folder / f".{STATE}.{os.getpid()}.{secrets.token_hex(4)}"
    tmp.write_text(json.dumps(state))
    os.replace(tmp, folder / STATE)


@contextlib.contextmanager
def _locked(folder: Path) -> Iterator[dict[str, float]]:
    """One rotation step at a time across processes; yields the state, saved on the way out."""
    with open(folder / LOCK, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        state = _read_state(folder)
        before = dict(state)
        yield state
        if state != before:
            _write_state(folder, state)


def _promote(folder: Path, state: dict[str, float], now: float) -> None:
    """The next key signs from now on; the signing key is kept, retired, in the JWKS."""
    _write_private(folder / PREVIOUS, (folder / CURRENT).read_bytes(), replace=True)
    os.replace(folder / NEXT, folder / CURRENT)  # CURRENT always exists: no reader makes a key
    state.pop("next_at", None)
    state["retired_at"] = now


def _tidy(folder: Path, now: float) -> None:
    """Switch to a next key whose delay has passed; drop a retired key whose delay has passed."""
    state, delay = _read_state(folder), _delay()
    has_next, has_previous = (folder / NEXT).exists(), (folder / PREVIOUS).exists()
    if not (
        (has_next and state.get("next_at", now) + delay <= now)
        or (has_previous and state.get("retired_at", now) + delay <= now)
        or (has_next and "next_at" not in state)
        or (has_previous and "retired_at" not in state)
    ):
        return
    with _locked(folder) as state:
        if (folder / NEXT).exists():
            state.setdefault("next_at", now)  # a key without a date: its delay starts now
            if state["next_at"] + delay <= now:
                _promote(folder, state, now)
        if (folder / PREVIOUS).exists():
            state.setdefault("retired_at", now)
            if state["retired_at"] + delay <= now:
                (folder / PREVIOUS).unlink()
                state.pop("retired_at")


def signing_key(*, now: float | None = None) -> ToolKey:
    """The key that signs now, made on first use (a concurrent first use keeps one of them)."""
    folder = _key_dir()
    path = folder / CURRENT
    if not path.exists():
        _write_private(path, _new_pem())
    _tidy(folder, time.time() if now is None else now)
    return _load(path)


def public_keys(*, now: float | None = None) -> list[dict[str, Any]]:
    """The JWKS keys: the signing key, the next key (published ahead), a recently retired key."""
    folder = _key_dir()
    found = [signing_key(now=now)]
    for name in (NEXT, PREVIOUS):
        with contextlib.suppress(FileNotFoundError):  # switched or dropped meanwhile
            found.append(_load(folder / name))
    unique = {key.kid: key for key in found}
    return [key.public_jwk() for key in unique.values()]


def rotate_key(*, now: float | None = None) -> Rotation:
    """Publish a next key (the signing key keeps signing until the delay has passed)."""
    moment = time.time() if now is None else now
    folder = _key_dir()
    signing_key(now=moment)
    with _locked(folder) as state:
        path = folder / NEXT
        created = not path.exists()
        if created:
            _write_private(path, _new_pem())
            state["next_at"] = moment
        published = state.setdefault("next_at", moment)
        return Rotation(key=_load(path), created=created, activates_at=published + _delay())


def activate_next_key(*, now: float | None = None) -> ToolKey:
    """Sign with the published next key from now on, without waiting for the delay."""
    folder = _key_dir()
    signing_key(now=now)
    with _locked(folder) as state:
        if not (folder / NEXT).exists():
            raise KeyRotationError(
                "there is no next key to switch to: publish one with "
                "`python -m app lti rotate-key` first, and switch once every LMS has fetched it"
            )
        _promote(folder, state, time.time() if now is None else now)
    return _load(folder / CURRENT)


def sign(claims: dict[str, Any]) -> str:
    """A JWT signed RS256 with the signing key, its kid in the header."""
    import jwt

    key = signing_key()
    return jwt.encode(claims, key.private, algorithm="RS256", headers={"kid": key.kid})
