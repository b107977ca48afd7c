"""Registering an LMS (platform + deployment): shared by the CLI and the instructor page."""

from __future__ import annotations

from urllib.parse import urlsplit

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.config import get_settings
from app.db import retry_conflicts
from app.lti.models import LtiDeployment, LtiPlatform


class RegistrationError(ValueError):
    """A registration value that cannot work; the message names the field."""


def _check_url(field: str, value: str) -> str:
    value = value.strip()
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise RegistrationError(f"{field} must be an absolute http(s) URL, got {value!r}")
    if parts.scheme != "https" and get_settings().app_env == "production":
        raise RegistrationError(f"{field} must use https in production, got {value!r}")
    if len(value) > 1000:
        raise RegistrationError(f"{field} is longer than 1000 characters")
    return value


def register_platform(
    *,
    session: Session,
    issuer: str,
    client_id: str,
    auth_url: str,
    token_url: str,
    jwks_url: str,
    deployment_id: str,
) -> tuple[LtiPlatform, bool]:
    """Create or update the platform for issuer + client id; (platform, created)."""
    issuer = _check_url("issuer", issuer)
    client_id, deployment_id = client_id.strip(), deployment_id.strip()
    if not client_id or len(client_id) > 255:
        raise RegistrationError("client id must be 1 to 255 characters")
    if not deployment_id or len(deployment_id) > 255:
        raise RegistrationError("deployment id must be 1 to 255 characters")
    urls = {
        "auth_url": _check_url("auth URL", auth_url),
        "token_url": _check_url("token URL", token_url),
        "jwks_url": _check_url("JWKS URL", jwks_url),
    }

    def store() -> tuple[LtiPlatform, bool]:
        platform = find_platform(session=session, issuer=issuer, client_id=client_id)
        created = platform is None
        if platform is None:
            platform = LtiPlatform(issuer=issuer, client_id=client_id, **urls)
            session.add(platform)
            session.flush()
        else:
            for name, value in urls.items():
                setattr(platform, name, value)
        known = session.scalar(
            select(LtiDeployment).where(
                LtiDeployment.platform_id == platform.id,
                LtiDeployment.deployment_id == deployment_id,
            )
        )
        if known is None:
            session.add(LtiDeployment(platform_id=platform.id, deployment_id=deployment_id))
        session.commit()
        return platform, created

    return retry_conflicts(session, store)  # a double click on Register: one platform


def find_platform(*, session: Session, issuer: str, client_id: str | None) -> LtiPlatform | None:
    """The platform of this issuer (and client id; optional when the issuer has only one)."""
    query = select(LtiPlatform).where(LtiPlatform.issuer == issuer)
    if client_id:
        query = query.where(LtiPlatform.client_id == client_id)
    found = list(session.scalars(query.limit(2)))
    return found[0] if len(found) == 1 else None


def deployment_known(*, session: Session, platform: LtiPlatform, deployment_id: str) -> bool:
    """Whether the platform registered this deployment id with us."""
    return (
        session.scalar(
            select(LtiDeployment.id).where(
                LtiDeployment.platform_id == platform.id,
                LtiDeployment.deployment_id == deployment_id,
            )
        )
        is not None
    )


def platforms(*, session: Session) -> list[tuple[LtiPlatform, list[str]]]:
    """Every platform with its deployment ids, for the instructor page."""
    rows = list(session.scalars(select(LtiPlatform).order_by(LtiPlatform.id)))
    out = []
    for platform in rows:
        ids = session.scalars(
            select(LtiDeployment.deployment_id).where(LtiDeployment.platform_id == platform.id)
        )
        out.append((platform, sorted(ids)))
    return out
