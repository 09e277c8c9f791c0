"""The console's login session and its CSRF defences.

Why an HttpOnly cookie rather than sessionStorage: the pages are rendered on the server, so a plain
navigation must carry the credential (sessionStorage would need script to fetch every page, and any
script injected into the page could read it); an HttpOnly cookie is never readable by script. The
cookie is SameSite=Strict, so browsers do not send it on cross-site requests at all, and in addition
every state-changing request must carry the session's CSRF value (a form field here, the X-CSRF-Token
header on /api/: app.auth) and, when the browser sends one, a same-origin Origin header. The cookie
holds the admin token itself, not a server-side session id: there is nothing to store or to share
between replicas, and removing the token from the configuration ends its sessions at once.
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from fastapi import Request, Response

from app.auth import CONSOLE_COOKIE, TokenGrant, csrf_matches, csrf_token, match

SESSION_MAX_AGE_S = 12 * 3600  # an operator logs in again after a working day
MAX_FORM_FIELDS = 20


class LoginRequired(Exception):
    """No console session (or its token is no longer an admin token): the browser is sent to the login."""


class ConsoleError(Exception):
    """A request the console refuses; rendered as a page with this status and message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def session_grant(request: Request) -> TokenGrant | None:
    token = request.cookies.get(CONSOLE_COOKIE)
    grant = match(request.app.state.grants, token) if token else None
    return grant if grant is not None and grant.scope == "admin" else None


def require_session(request: Request) -> TokenGrant:
    """Dependency of every console page: an admin token's session (the role of the people it shows is
    still read from EMPLOYEES for each question)."""
    grant = session_grant(request)
    if grant is None:
        raise LoginRequired
    return grant


def csrf_for(request: Request) -> str:
    """The CSRF value the session's pages carry (a form field, and a meta tag for the playground's script)."""
    return csrf_token(request.cookies[CONSOLE_COOKIE])


def start_session(response: Response, request: Request, token: str) -> None:
    response.set_cookie(CONSOLE_COOKIE, token, max_age=SESSION_MAX_AGE_S, path="/", httponly=True,
                        samesite="strict", secure=request.url.scheme == "https")


def end_session(response: Response, request: Request) -> None:
    response.delete_cookie(CONSOLE_COOKIE, path="/", httponly=True, samesite="strict",
                           secure=request.url.scheme == "https")


async def posted_form(request: Request, *, csrf: bool = True) -> dict[str, str]:
    """The fields of a same-origin form post (application/x-www-form-urlencoded), checked for the session's
    CSRF value unless ``csrf`` is False (the login, which has no session yet)."""
    origin = request.headers.get("origin")
    if origin is not None and urlsplit(origin).netloc != request.headers.get("host"):
        raise ConsoleError(403, "this form was posted from another site")
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/x-www-form-urlencoded":
        raise ConsoleError(415, "the console's forms are posted as application/x-www-form-urlencoded")
    try:
        fields = parse_qs((await request.body()).decode("utf-8"), keep_blank_values=True,
                          max_num_fields=MAX_FORM_FIELDS)
    except (UnicodeDecodeError, ValueError):
        raise ConsoleError(400, "the form could not be read") from None
    form = {name: values[0] for name, values in fields.items()}
    token = request.cookies.get(CONSOLE_COOKIE)
    if csrf and not (token and csrf_matches(token, form.get("csrf"))):
        raise ConsoleError(403, "the form's CSRF value is missing or stale: reload the page and try again")
    return form
