"""LMS roles: only teaching roles in the launching course make an instructor here."""

from __future__ import annotations

import pytest

from app.config import get_settings
from app.lti.accounts import role_for
from app.users.models import Role

V2 = "http://purl.imsglobal.org/vocab/lis/v2/"


@pytest.mark.parametrize(
    ("roles", "expected"),
    [
        ([V2 + "membership#Instructor"], Role.instructor),
        ([V2 + "membership#ContentDeveloper"], Role.instructor),
        ([V2 + "membership#Administrator"], Role.instructor),
        ([V2 + "membership/Instructor#TeachingAssistant"], Role.instructor),
        (["Instructor"], Role.instructor),
        (["TeachingAssistant"], Role.instructor),
        (["urn:lti:role:ims/lis/Instructor"], Role.instructor),
        (["urn:lti:role:ims/lis/Instructor/TeachingAssistant"], Role.instructor),
        ([V2 + "membership#Learner"], Role.student),
        (["Learner"], Role.student),
        ([V2 + "membership#Mentor"], Role.student),
        # Canvas: someone who teaches some course, a student in this one.
        ([V2 + "institution/person#Instructor", V2 + "membership#Learner"], Role.student),
        ([V2 + "institution/person#Instructor"], Role.student),
        ([V2 + "institution/person#Administrator"], Role.student),
        ([V2 + "institution/person#Faculty"], Role.student),
        ([V2 + "system/person#Administrator"], Role.student),
        (["urn:lti:instrole:ims/lis/Instructor"], Role.student),
        (["urn:lti:sysrole:ims/lis/Administrator"], Role.student),
        # A Learner sub-role named Instructor is still a Learner.
        ([V2 + "membership/Learner#Instructor"], Role.student),
        (["http://example.org/roles#Instructor"], Role.student),
        ([], Role.student),
    ],
)
def test_role_comes_from_the_principal_context_role(roles: list[str], expected: Role) -> None:
    assert role_for(roles, trust_institution=False) == expected


@pytest.mark.parametrize(
    ("roles", "expected"),
    [
        ([V2 + "institution/person#Instructor", V2 + "membership#Learner"], Role.instructor),
        ([V2 + "institution/person#Faculty"], Role.instructor),
        ([V2 + "system/person#Administrator"], Role.instructor),
        (["urn:lti:instrole:ims/lis/Instructor"], Role.instructor),
        ([V2 + "institution/person#Student"], Role.student),
        ([V2 + "membership/Learner#Instructor"], Role.student),
    ],
)
def test_institution_roles_count_only_when_trusted(roles: list[str], expected: Role) -> None:
    assert role_for(roles, trust_institution=True) == expected


def test_the_setting_turns_institution_roles_on(monkeypatch: pytest.MonkeyPatch) -> None:
    roles = [V2 + "institution/person#Instructor", V2 + "membership#Learner"]
    assert role_for(roles) == Role.student
    monkeypatch.setenv("LTI_TRUST_INSTITUTION_ROLES", "true")
    get_settings.cache_clear()
    try:
        assert role_for(roles) == Role.instructor
    finally:
        monkeypatch.delenv("LTI_TRUST_INSTITUTION_ROLES")
        get_settings.cache_clear()
