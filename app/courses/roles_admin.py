"""Site administrators grant roles on a page: staff of an offering, or another administrator
(what `offerings enroll` and `offerings admin` do on the command line)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Form, HTTPException
from fastapi.responses import RedirectResponse
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import func, select
from sqlalchemy.orm import Session
from starlette.responses import Response

from app.offerings.access import SiteAdmin
from app.offerings.models import Offering, OfferingRole
from app.offerings.service import enroll
from app.users.models import User
from app.web.api import errors
from app.web.request_session import SessionDep

router = APIRouter(tags=["admin"])
ROLES = ("admin", "instructor", "ta", "student")
NO_ACCOUNT = (
    "There is no account with that e-mail address: ask the person to sign up first, or add "
    "them with a roster upload."
)


class RoleIn(BaseModel):
    """Body of a grant: who, which role, and in which offering (none for a site admin)."""

    model_config = ConfigDict(extra="forbid")

    email: str = Field(max_length=320)
    role: str = Field(description="admin, instructor, ta or student.")
    offering: int | None = Field(default=None, ge=1, le=2**31 - 1)


def grant(*, session: Session, body: RoleIn) -> dict[str, Any]:
    """Give the role (an offering's roles replace the person's role there)."""
    if body.role not in ROLES:
        raise HTTPException(422, f"The role must be one of: {', '.join(ROLES)}.")
    user = session.scalar(select(User).where(func.lower(User.email) == body.email.strip().lower()))
    if user is None:
        raise HTTPException(422, NO_ACCOUNT)
    if body.role == "admin":
        user.is_admin = True
        session.commit()
        return {"email": user.email, "role": "admin", "offering": None}
    offering = None if body.offering is None else session.get(Offering, body.offering)
    if offering is None:
        raise HTTPException(422, "Choose the offering the role is for.")
    enroll(session=session, offering=offering, user=user, role=OfferingRole(body.role))
    return {"email": user.email, "role": body.role, "offering": offering.id}


@router.post("/api/admin/roles", responses=errors(401, 403, 422))
def grant_api(
    body: Annotated[RoleIn, Body()], session: SessionDep, user: SiteAdmin
) -> dict[str, Any]:
    """Grant a role in an offering, or make someone a site administrator."""
    return grant(session=session, body=body)


@router.post("/admin/roles", include_in_schema=False)
def grant_form(
    session: SessionDep,
    user: SiteAdmin,
    email: Annotated[str, Form()] = "",
    role: Annotated[str, Form()] = "",
    offering: Annotated[str, Form()] = "",
) -> Response:
    """The offerings page's role form; errors come back as a page with the sentence."""
    chosen = int(offering) if offering.strip().isdigit() else None
    done = grant(session=session, body=RoleIn(email=email[:320], role=role, offering=chosen))
    return RedirectResponse(f"/admin/offerings?granted={done['role']}#roles", status_code=303)
