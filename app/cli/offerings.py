"""`offerings create|list|enroll|roster|open|admin`: a site administrator's offering commands."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from app.cli.common import fail


def _known_courses() -> list[str]:
    """The slugs of the courses this deployment serves (as `courses list` finds them)."""
    from app.courses.service import process_registry, reset_process_registry

    reset_process_registry()  # a course may have been added since
    return process_registry().slugs()


def cmd_offerings(args: argparse.Namespace) -> int:
    """Create, list and fill offerings; make someone a site administrator."""
    from app.courses.service import process_registry
    from app.db import session_factory
    from app.offerings.invitations import mail_links
    from app.offerings.models import OfferingRole
    from app.offerings.roster import RosterError, apply_roster, parse_roster
    from app.offerings.service import (
        OfferingError,
        create_offering,
        enroll,
        get_offering,
        offering_rows,
        parse_day,
    )
    from app.users.password_links import make_link
    from app.users.service import get_user_by_email

    with session_factory()() as session:
        try:
            if args.offerings_command == "create":
                offering = create_offering(
                    session=session,
                    course_slug=args.course or process_registry().first_slug,
                    title=args.title,
                    starts_at=parse_day(args.starts),
                    ends_at=parse_day(args.ends),
                    with_join_code=not args.no_join_code,
                    known_courses=_known_courses(),
                    is_open=args.open,
                )
                state = "open" if offering.is_open else "closed"
                print(
                    f"created offering {offering.id}: {offering.title} ({offering.course_slug}), "
                    f"{state}"
                )
                if offering.join_code:
                    print(f"join code {offering.join_code}; link /join/{offering.join_code}")
                return 0
            if args.offerings_command == "list":
                rows = [
                    {k: row[k] for k in ("id", "course", "title", "join_code", "members")}
                    for row in offering_rows(session=session)
                ]
                for row in rows:
                    print(
                        f"{row['id']:>4}  {row['course']}  {row['title']}  "
                        f"{row['members']} member(s)  code {row['join_code'] or '-'}"
                    )
                if args.json:
                    print(json.dumps(rows))
                return 0
            if args.offerings_command == "admin":
                found = get_user_by_email(session=session, email=args.email)
                if found is None:
                    return fail(f"no account with email {args.email}")
                found.is_admin = not args.revoke
                session.commit()
                state = "no longer a" if args.revoke else "now a"
                print(f"{found.email} is {state} site administrator")
                return 0
            offering = get_offering(session=session, offering_id=args.offering)
            if args.offerings_command == "open":
                offering.is_open = not args.close
                session.commit()
                state = "open: anyone signed in may study" if offering.is_open else "closed"
                print(f"offering {offering.id} ({offering.title}) is {state}")
                return 0
            if args.offerings_command == "roster":
                try:
                    text = Path(args.file).read_text(encoding="utf-8")
                except (OSError, UnicodeDecodeError) as exc:
                    return fail(f"cannot read {args.file}: {exc}")
                result = apply_roster(session=session, offering=offering, lines=parse_roster(text))
                print(f"enrolled {result.enrolled} in offering {offering.id}")
                waiting = [u for u in result.people if not u.password_set]
                links = [make_link(made) for made in waiting]
                for link in links:  # after the site's address, e.g. https://host
                    print(f"set-password link for {link.email}: {link.path}")
                if args.mail and links:  # after the commit: a failed mail loses nothing
                    site = args.mail.rstrip("/")
                    pairs = [(link, site + link.path) for link in links]
                    statuses = mail_links(offering=offering, links=pairs, site=site)
                    for link, status in zip(links, statuses, strict=True):
                        print(f"mail to {link.email}: {status}")
                return 0
            user = get_user_by_email(session=session, email=args.email)
            if user is None:
                return fail(f"no account with email {args.email}; create it with `users create`")
            enroll(session=session, offering=offering, user=user, role=OfferingRole(args.role))
            print(f"{user.email} is {args.role} in offering {offering.id} ({offering.title})")
            return 0
        except (OfferingError, RosterError) as exc:
            return fail(str(exc))


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register `offerings ...`."""
    parser = sub.add_parser("offerings", help="create, list and fill offerings of a course")
    parser.set_defaults(func=cmd_offerings, needs_database=True)
    commands = parser.add_subparsers(dest="offerings_command", required=True)
    create = commands.add_parser("create", help="a new offering of a course, with a join code")
    create.add_argument("--course", help="the course's slug (default: the first course)")
    create.add_argument("--title", required=True, help="e.g. 'Spring 2027, section A'")
    create.add_argument("--starts", help="first day, e.g. 2027-01-15")
    create.add_argument("--ends", help="last day, e.g. 2027-05-15")
    create.add_argument("--no-join-code", action="store_true", help="join only by roster or LMS")
    create.add_argument(
        "--open", action="store_true", help="anyone signed in may study (default: closed)"
    )
    listing = commands.add_parser("list", help="every offering with its members and join code")
    listing.add_argument("--json", action="store_true", help="also print the list as JSON")
    enrol = commands.add_parser("enroll", help="put an account in an offering with a role")
    enrol.add_argument("offering", type=int, help="the offering's id (see `offerings list`)")
    enrol.add_argument("email")
    enrol.add_argument("--role", choices=["instructor", "ta", "student"], default="student")
    roster = commands.add_parser("roster", help="enrol everyone of a CSV (email,name,role)")
    roster.add_argument("offering", type=int)
    roster.add_argument("file", help="a CSV file whose first line is email,name,role")
    roster.add_argument(
        "--mail",
        metavar="SITE",
        help="also mail each new account its link, starting with the site's address, e.g. "
        "https://course.school.edu (needs SMTP_HOST and SMTP_SENDER)",
    )
    opening = commands.add_parser("open", help="let anyone signed in study in an offering")
    opening.add_argument("offering", type=int)
    opening.add_argument("--close", action="store_true", help="close it: code, roster or LMS only")
    admin = commands.add_parser("admin", help="make an account a site administrator")
    admin.add_argument("email")
    admin.add_argument("--revoke", action="store_true", help="take the role back")
