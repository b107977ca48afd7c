"""Offerings refuse with DomainErrors, answered by the one handler (app/web/errors.py)."""

from __future__ import annotations

from app.config import ROOT
from app.errors import DomainError
from app.offerings import access
from app.offerings.roster import RosterError
from app.offerings.service import OfferingError


def test_an_offering_error_is_a_clause_for_the_command_line_and_a_sentence_for_the_web() -> None:
    error = OfferingError("there is no offering 9", status=404)
    assert isinstance(error, DomainError)
    assert (error.status, error.message) == (404, "There is no offering 9.")
    assert str(error) == "there is no offering 9"  # the command line prints `error: ` + this
    assert OfferingError("give the offering a title").status == 422


def test_a_roster_error_is_an_unprocessable_offering_error() -> None:
    error = RosterError("the roster lists nobody")
    assert isinstance(error, OfferingError)
    assert (error.status, error.message) == (422, "The roster lists nobody.")


def test_access_refusals_are_domain_errors() -> None:
    refused = access.OfferingAccessError(access.NOT_A_MEMBER)
    assert isinstance(refused, DomainError)
    assert (refused.status, refused.message) == (403, "You are not a member of this offering.")


def test_no_offerings_code_builds_an_http_exception_by_hand() -> None:
    offenders = [
        str(path.relative_to(ROOT))
        for path in (ROOT / "app" / "offerings").rglob("*.py")
        if "HTTPException" in path.read_text(encoding="utf-8")
    ]
    assert offenders == []
