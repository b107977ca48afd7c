"""Sign up, log in and log out in the browser; thin: the rules live in sessions and service."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import RedirectResponse
from sqlalchemy.exc import IntegrityError
from starlette.responses import Response

from app.config import get_settings
from app.users.deps import OptionalUser
from app.users.models import User
from app.users.password_links import MAX_TOKEN_CHARS as MAX_LINK_CHARS
from app.users.password_links import PATH as PASSWORD_PATH
from app.users.password_links import LinkError, set_password_with_link, user_for_link
from app.users.ratelimit import AuthLimiterDep, FailureLimiter, minutes_text
from app.users.service import (
    AccountError,
    check_password_strength,
    create_user,
    get_user_by_email,
    normalize_email,
)
from app.users.sessions import (
    MAX_PASSWORD_CHARS,
    authenticate,
    end_web_session,
    safe_next,
    start_web_session,
)
from app.web.csrf import SESSION_COOKIE
from app.web.request_session import SessionDep
from app.web.templating import render

router = APIRouter(include_in_schema=False)
WRONG_LOGIN = "The email or password is wrong."
MAX_EMAIL_CHARS = 320
MAX_NAME_CHARS = 200

FormStr = Annotated[str, Form()]
NextField = Annotated[str, Form(alias="next")]


def _client_ip(request: Request) -> str:
    return request.client.host if request.client else "unknown"


def _keys(kind: str, request: Request, email: str) -> list[str]:
    keys = [f"{kind}:ip:{_client_ip(request)}"]
    if email:
        keys.append(f"{kind}:email:{email[:MAX_EMAIL_CHARS]}")
    return keys


def _logged_in(request: Request, session: SessionDep, user: User, target: str) -> Response:
    """Start a fresh session (never reuse one from before the login) and go on."""
    settings = get_settings()
    end_web_session(session=session, token=request.cookies.get(SESSION_COOKIE))
    token = start_web_session(session=session, user=user, days=settings.session_days)
    response = RedirectResponse(target, status_code=303)
    response.set_cookie(
        SESSION_COOKIE,
        token,
        max_age=settings.session_days * 86400,
        path="/",
        httponly=True,
        samesite="lax",
        secure=settings.app_env == "production",
    )
    return response


def _too_many(request: Request, template: str, wait: float, **context: object) -> Response:
    message = f"Too many attempts. Please try again in {minutes_text(wait)}."
    response = render(request, template, status_code=429, errors=[message], **context)
    response.headers["retry-after"] = str(max(1, int(wait + 0.999)))
    return response


@router.get("/login")
def login_form(request: Request, user: OptionalUser, next: str | None = None) -> Response:
    """The login form; someone already logged in goes straight on."""
    target = safe_next(next)
    if user is not None:
        return RedirectResponse(target, status_code=303)
    return render(request, "account/login.html", user=None, next=target, email="", errors=[])


@router.post("/login")
def login(
    request: Request,
    session: SessionDep,
    limiter: AuthLimiterDep,
    email: FormStr = "",
    password: FormStr = "",
    next_url: NextField = "",
) -> Response:
    """Check the password; the same message for an unknown email and a wrong password."""
    email = normalize_email(email)[: MAX_EMAIL_CHARS + 1]
    target = safe_next(next_url)
    context = {"user": None, "next": target, "email": email}
    keys = _keys("login", request, email)
    wait = limiter.retry_after(keys)
    if wait > 0:
        return _too_many(request, "account/login.html", wait, **context)
    user = authenticate(session=session, email=email, password=password)
    if user is None:
        limiter.record_failure(keys)
        return render(
            request, "account/login.html", status_code=401, errors=[WRONG_LOGIN], **context
        )
    limiter.reset(keys[-1])
    return _logged_in(request, session, user, target)


@router.get("/signup")
def signup_form(request: Request, user: OptionalUser, next: str | None = None) -> Response:
    """The sign-up form."""
    target = safe_next(next)
    if user is not None:
        return RedirectResponse(target, status_code=303)
    return render(
        request, "account/signup.html", user=None, next=target, email="", full_name="", errors=[]
    )


def _signup_problems(email: str, name: str, password: str, confirm: str) -> list[str]:
    problems = []
    if not email:
        problems.append("Enter your email address.")
    elif len(email) > MAX_EMAIL_CHARS or "@" not in email.strip("@") or " " in email:
        problems.append(f"'{email[:80]}' is not an email address.")
    if not name.strip():
        problems.append("Enter your name (it is shown to you and to instructors).")
    elif len(name) > MAX_NAME_CHARS:
        problems.append(f"The name must be at most {MAX_NAME_CHARS} characters long.")
    return problems + _password_problems(password, confirm)


def _password_problems(password: str, confirm: str) -> list[str]:
    """What is wrong with a new password typed twice (sign-up, set-password link)."""
    problems = []
    if len(password) > MAX_PASSWORD_CHARS:
        problems.append(f"The password must be at most {MAX_PASSWORD_CHARS} characters long.")
    else:
        try:
            check_password_strength(password)
        except AccountError as exc:
            problems.append(f"{str(exc)[:1].upper()}{str(exc)[1:]}.")
    if password != confirm:
        problems.append("The two passwords are different; type the same password twice.")
    return problems


@router.post("/signup")
def signup(
    request: Request,
    session: SessionDep,
    limiter: AuthLimiterDep,
    email: FormStr = "",
    name: FormStr = "",
    password: FormStr = "",
    confirm: FormStr = "",
    next_url: NextField = "",
) -> Response:
    """Create a student account and log it in."""
    email = normalize_email(email)
    target = safe_next(next_url)
    context = {
        "user": None,
        "next": target,
        "email": email[:MAX_EMAIL_CHARS],
        "full_name": name[:200],
    }
    keys = _keys("signup", request, email)
    wait = limiter.retry_after(keys)
    if wait > 0:
        return _too_many(request, "account/signup.html", wait, **context)
    problems = _signup_problems(email, name, password, confirm)
    if not problems and get_user_by_email(session=session, email=email) is not None:
        problems.append("An account with this email already exists. Log in instead.")
    user = None
    if not problems:
        try:
            user, created = create_user(session=session, email=email, password=password, name=name)
            if not created:
                problems.append("An account with this email already exists. Log in instead.")
        except AccountError as exc:
            problems.append(f"{str(exc)[:1].upper()}{str(exc)[1:]}.")
        except IntegrityError:
            session.rollback()
            problems.append("An account with this email already exists. Log in instead.")
    if problems or user is None:
        limiter.record_failure(keys)
        return render(request, "account/signup.html", status_code=400, errors=problems, **context)
    return _logged_in(request, session, user, target)


@router.post("/logout")
def logout(request: Request, session: SessionDep) -> Response:
    """End the session on the server and drop the cookie."""
    end_web_session(session=session, token=request.cookies.get(SESSION_COOKIE))
    response = RedirectResponse("/", status_code=303)
    response.delete_cookie(
        SESSION_COOKIE,
        path="/",
        httponly=True,
        samesite="lax",
        secure=get_settings().app_env == "production",
    )
    return response


def _password_page(
    request: Request,
    *,
    token: str = "",
    email: str | None = None,
    status_code: int = 200,
    errors: list[str] | None = None,
) -> Response:
    response = render(
        request,
        "account/set_password.html",
        status_code=status_code,
        user=None,
        token=token,
        email=email,
        errors=errors or [],
    )
    response.headers["referrer-policy"] = "no-referrer"  # the link is a credential
    return response


def _link_owner(
    request: Request, session: SessionDep, token: str, limiter: FailureLimiter
) -> User | Response:
    """The link's account, or the page saying why not; refused links count as failed logins."""
    keys = [f"password:ip:{_client_ip(request)}"]
    wait = limiter.retry_after(keys)
    if wait > 0:
        response = _too_many(request, "account/set_password.html", wait, token="", email=None)
        response.headers["referrer-policy"] = "no-referrer"
        return response
    try:
        return user_for_link(session=session, token=token[:MAX_LINK_CHARS])
    except LinkError as exc:
        limiter.record_failure(keys)
        return _password_page(request, status_code=400, errors=[str(exc)])


@router.get(PASSWORD_PATH)
def set_password_form(
    request: Request, session: SessionDep, limiter: AuthLimiterDep, token: str = ""
) -> Response:
    """A set-password link: the form, or why the link cannot be used."""
    owner = _link_owner(request, session, token, limiter)
    if isinstance(owner, Response):
        return owner
    return _password_page(request, token=token, email=owner.email)


@router.post(PASSWORD_PATH)
def set_password(
    request: Request,
    session: SessionDep,
    limiter: AuthLimiterDep,
    token: FormStr = "",
    password: FormStr = "",
    confirm: FormStr = "",
) -> Response:
    """Set the password through the link (used up by it), then log the person in."""
    owner = _link_owner(request, session, token, limiter)
    if isinstance(owner, Response):
        return owner
    problems = _password_problems(password, confirm)
    if problems:
        return _password_page(
            request, token=token, email=owner.email, status_code=400, errors=problems
        )
    try:
        user = set_password_with_link(session=session, token=token, password=password)
    except LinkError as exc:  # used in another tab meanwhile
        return _password_page(request, status_code=400, errors=[str(exc)])
    return _logged_in(request, session, user, "/")
