"""`lti register` and `lti rotate-key`: connecting an LMS and changing the tool's key."""

from __future__ import annotations

import argparse
from typing import Any

from app.cli.common import fail
from app.config import get_settings


def _rotate_key(*, activate: bool) -> int:
    """Publish the next tool key, or (--activate) sign with it now; explain what happens when."""
    import datetime as dt

    from app.lti import keys

    days = get_settings().lti_key_rotation_days
    if activate:
        try:
            key = keys.activate_next_key()
        except keys.KeyRotationError as exc:
            return fail(str(exc))
        print(
            f"the tool now signs with key {key.kid}; the retired key stays in the JWKS for "
            f"{days:g} days so what it signed still verifies"
        )
        return 0
    rotation = keys.rotate_key()
    when = dt.datetime.fromtimestamp(rotation.activates_at, dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    state = "published" if rotation.created else "was already published"
    print(
        f"next key {rotation.key.kid} {state} in the JWKS; the current key still signs until "
        f"{when} (LTI_KEY_ROTATION_DAYS={days:g}), so LMSs that cached the key set fetch the "
        "new one first. Switch earlier with `python -m app lti rotate-key --activate`."
    )
    return 0


def cmd_lti(args: argparse.Namespace) -> int:
    """Register an LMS (idempotent) or rotate the tool's signing key."""
    from app.db import ensure_data_dir, session_factory
    from app.lti import keys
    from app.lti.registry import RegistrationError, register_platform

    ensure_data_dir()
    if args.lti_command == "rotate-key":
        return _rotate_key(activate=args.activate)
    with session_factory()() as session:
        try:
            platform, created = register_platform(
                session=session,
                issuer=args.issuer,
                client_id=args.client_id,
                auth_url=args.auth_url,
                token_url=args.token_url,
                jwks_url=args.jwks_url,
                deployment_id=args.deployment_id,
            )
        except RegistrationError as exc:
            return fail(str(exc))
    key = keys.signing_key()
    print(
        f"{'registered' if created else 'updated'}: {platform.issuer} client {platform.client_id}"
    )
    print(f"tool key id: {key.kid}")
    return 0


def add_parser(sub: Any) -> None:
    """Register `lti` and its subcommands on the command line's subparsers."""
    lti = sub.add_parser("lti", help="LMS integration (LTI 1.3)")
    lti_sub = lti.add_subparsers(dest="lti_command", required=True)
    register = lti_sub.add_parser("register", help="register an LMS (idempotent)")
    register.set_defaults(needs_database=True)
    for flag in ("issuer", "client-id", "auth-url", "token-url", "jwks-url", "deployment-id"):
        register.add_argument(f"--{flag}", required=True)
    rotate = lti_sub.add_parser(
        "rotate-key",
        help="publish the next signing key; it signs after LTI_KEY_ROTATION_DAYS or --activate",
    )
    rotate.add_argument(
        "--activate",
        action="store_true",
        help="sign with the published next key now (the retired key stays in the JWKS a while)",
    )
    lti.set_defaults(func=cmd_lti)
