"""`python -m app offerings ...`: create, list, enrol, roster and site administrators."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.cli import main
from app.db import session_factory
from app.offerings.models import OfferingRole
from app.offerings.service import role_in
from app.users.models import User
from app.users.service import get_user_by_email
from tests.users.helpers import make_user


def _role(email: str, offering_id: int) -> OfferingRole | None:
    with session_factory()() as session:
        user = get_user_by_email(session=session, email=email)
        assert user is not None
        return role_in(session=session, user_id=user.id, offering_id=offering_id)


def test_create_list_and_enroll(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["offerings", "create", "--title", "Spring 2027, section A"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("created offering 2: Spring 2027, section A (positional-embeddings)")
    assert "join code " in out
    make_user("tay@example.org")
    assert main(["offerings", "enroll", "2", "tay@example.org", "--role", "ta"]) == 0
    assert _role("tay@example.org", 2) == OfferingRole.ta
    assert main(["offerings", "list", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert [(r["id"], r["title"], r["members"]) for r in rows] == [
        (1, "First offering", 0),  # an account joins the open first offering by working in it
        (2, "Spring 2027, section A", 1),
    ]


def test_bad_input_gets_one_clear_line(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["offerings", "create", "--title", " "]) == 1
    assert main(["offerings", "create", "--title", "X", "--starts", "soon"]) == 1
    assert main(["offerings", "enroll", "9", "nobody@example.org"]) == 1
    assert main(["offerings", "enroll", "1", "nobody@example.org"]) == 1
    err = capsys.readouterr().err
    assert err.splitlines() == [
        "error: give the offering a title, e.g. 'Spring 2027, section A'",
        "error: 'soon' is not a date like 2027-01-15",
        "error: there is no offering 9",
        "error: no account with email nobody@example.org; create it with `users create`",
    ]


def test_roster_enrols_everyone_or_nobody(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make_user("ada@example.org")
    bad = tmp_path / "bad.csv"
    bad.write_text("email,name,role\nbob@example.org,Bob,professor\nnot-an-email,X,student\n")
    assert main(["offerings", "roster", "1", str(bad)]) == 1
    assert capsys.readouterr().err.strip() == (
        "error: line 2: the role 'professor' is not one of instructor, ta, student; "
        "line 3: 'not-an-email' is not an email address"
    )
    good = tmp_path / "good.csv"
    good.write_text("Email,Name,Role\nADA@example.org,Ada,ta\nbob@example.org,Bob,\n\n")
    assert main(["offerings", "roster", "1", str(good)]) == 0
    out = capsys.readouterr().out
    assert "enrolled 2 in offering 1" in out
    assert "set-password link for bob@example.org: /account/password?token=" in out
    assert "link for ada@example.org" not in out  # her account was there before
    assert _role("ada@example.org", 1) == OfferingRole.ta
    assert _role("bob@example.org", 1) == OfferingRole.student


def test_admin_flag(data_dir: Path) -> None:
    make_user("root@example.org")
    assert main(["offerings", "admin", "root@example.org"]) == 0
    with session_factory()() as session:
        user = get_user_by_email(session=session, email="root@example.org")
        assert isinstance(user, User) and user.is_admin
    assert main(["offerings", "admin", "root@example.org", "--revoke"]) == 0


def test_create_refuses_a_duplicate_and_an_unknown_course(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["offerings", "create", "--title", "Spring 2027, section A"]) == 0
    assert main(["offerings", "create", "--title", "spring 2027, section a"]) == 1
    assert main(["offerings", "create", "--course", "nope", "--title", "B"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[0] == (
        "error: the course 'positional-embeddings' already has an offering called "
        "'Spring 2027, section A' (offering 2); choose another title"
    )
    assert err[1].startswith("error: there is no course called 'nope' (the courses are: ")
