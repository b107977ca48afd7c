"""`users create|token`: accounts and bearer tokens for scripts."""

from __future__ import annotations

import argparse
from typing import Any

from app.cli.common import fail as _fail
from app.users.roles import Role


def cmd_users(args: argparse.Namespace) -> int:
    """Create accounts and issue tokens for scripts."""
    from app.db import session_factory
    from app.users.service import AccountError, create_user, get_user_by_email, issue_api_token

    with session_factory()() as session:
        if args.users_command == "create":
            try:
                user, created = create_user(
                    session=session,
                    email=args.email,
                    password=args.password,
                    role=Role(args.role),
                    name=args.name or "",
                )
            except AccountError as exc:
                return _fail(str(exc))
            print(f"{'created' if created else 'already exists'}: {user.email} ({user.role})")
            return 0
        user_or_none = get_user_by_email(session=session, email=args.email)
        if user_or_none is None:
            return _fail(f"no account with email {args.email}; create it with `users create`")
        print(issue_api_token(session=session, user=user_or_none))
        return 0


def add_parser(sub: Any) -> None:
    """Register `users` and its subcommands on the command line's subparsers."""
    users = sub.add_parser("users", help="manage accounts")
    users_sub = users.add_subparsers(dest="users_command", required=True)
    create = users_sub.add_parser("create", help="create an account (idempotent)")
    create.add_argument("--email", required=True)
    create.add_argument("--password", required=True)
    create.add_argument("--role", choices=[r.value for r in Role], default="student")
    create.add_argument("--name")
    token = users_sub.add_parser("token", help="print a bearer token for an account")
    token.add_argument("--email", required=True)
    users.set_defaults(func=cmd_users, needs_database=True)
