"""The tool's RSA keys: made once in the data dir (mode 0600), rotatable, served as a JWKS."""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from app.config import get_settings

CURRENT = "private_key.pem"
PREVIOUS = "previous_key.pem"


@dataclass(frozen=True)
class ToolKey:
    """A private key and its key id (the RFC 7638 thumbprint of its public half)."""

    private: rsa.RSAPrivateKey
    kid: str

    def public_jwk(self) -> dict[str, Any]:
        """The public half as a JWK with kid, alg and use."""
        jwk: dict[str, Any] = json.loads(
            jwt.algorithms.RSAAlgorithm.to_jwk(self.private.public_key())
        )
        return {**jwk, "kid": self.kid, "alg": "RS256", "use": "sig"}


def _thumbprint(key: rsa.RSAPrivateKey) -> str:
    jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(key.public_key()))
    canonical = json.dumps({k: jwk[k] for k in ("e", "kty", "n")}, separators=(",", ":"))
    digest = hashlib.sha256(canonical.encode()).digest()
    return base64.urlsafe_b64encode(digest).decode().rstrip("=")


def _pem(key: rsa.RSAPrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


def _write_private(path: Path, data: bytes) -> None:
    """Create the file (owner-only) complete or not at all; an existing file is kept."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    try:
        with contextlib.suppress(FileExistsError):  # another process made it first: keep theirs
            os.link(tmp, path)
    finally:
        tmp.unlink()


def _load(path: Path) -> ToolKey:
    key = serialization.load_pem_private_key(path.read_bytes(), password=None)
    if not isinstance(key, rsa.RSAPrivateKey):
        raise ValueError(f"{path} does not hold an RSA private key")
    return ToolKey(private=key, kid=_thumbprint(key))


def _key_dir() -> Path:
    folder = get_settings().lti_key_dir
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    return folder


def current_key() -> ToolKey:
    """The signing key, generated on first use (a concurrent first use keeps one of them)."""
    path = _key_dir() / CURRENT
    if not path.exists():
        _write_private(path, _pem(rsa.generate_private_key(public_exponent=65537, key_size=2048)))
    return _load(path)


def public_keys() -> list[dict[str, Any]]:
    """The JWKS keys: the current key, then the previous one while platforms catch up."""
    keys = [current_key().public_jwk()]
    previous = _key_dir() / PREVIOUS
    if previous.exists():
        keys.append(_load(previous).public_jwk())
    return keys


def rotate_key() -> ToolKey:
    """Make a new signing key; the old one stays in the JWKS as the previous key."""
    folder = _key_dir()
    old = folder / CURRENT
    if old.exists():
        os.replace(old, folder / PREVIOUS)
    return current_key()


def sign(claims: dict[str, Any]) -> str:
    """A JWT signed RS256 with the current key, its kid in the header."""
    key = current_key()
    return jwt.encode(claims, key.private, algorithm="RS256", headers={"kid": key.kid})
