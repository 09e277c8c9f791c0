"""API tokens and what each may do (pure: no I/O).

A token identifies a client, not a person — unless it is bound to one. ``admin`` tokens may use every
endpoint; ``bot`` tokens may search, chat and keep the conversations of the employees they act for (list,
read, re-scope, delete), optionally only on behalf of some employees (by id) or of employees whose role,
read from EMPLOYEES at request time, is in a set; a ``user`` token is bound to one employee
(``employee_id``: a personal OpenAI-compatible or MCP client) and may only search, chat and read that
employee's conversations, always as that employee.

Tokens are kept only as SHA-256 digests, and an offered token is hashed and compared with every
digest in constant time, so neither the environment (``sha256:<hex>`` entries) nor timing needs
to reveal a token.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from dataclasses import dataclass, field
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, model_validator

from app.domain import MAX_ID, Role

HASH_PREFIX = "sha256:"
# The operator console's session (app/console): the admin token in an HttpOnly, SameSite=Strict cookie.
# On /api/ the cookie counts only beside CSRF_HEADER carrying csrf_token(token): a cross-site page can
# neither read that value nor send a custom header without a CORS preflight, which this API never grants.
CONSOLE_COOKIE = "rag_console"
CSRF_HEADER = "x-csrf-token"
_HEX_DIGEST = re.compile(r"[0-9a-fA-F]{64}")

Permission = Literal["admin", "bot", "user"]
# What each scope may use covers what the scopes below it may: admin > bot > user.
_RANK: dict[str, int] = {"user": 0, "bot": 1, "admin": 2}


@dataclass(frozen=True)
class TokenGrant:
    name: str
    scope: Permission
    digest: bytes = field(repr=False)
    employee_ids: frozenset[int] | None = None  # None: any employee
    roles: frozenset[Role] | None = None  # None: any role
    plain: bool = False  # configured as plain text (not a hash)
    employee_id: int | None = None  # a user token: the one employee it is bound to

    @property
    def limited(self) -> bool:
        """Limited to some employees (by id or by role): then it must not learn who exists or who is what."""
        return self.employee_ids is not None or self.roles is not None

    def allows(self, needed: Permission) -> bool:
        """Whether this token may use an endpoint that needs at least ``needed``."""
        return _RANK[self.scope] >= _RANK[needed]

    def may_act_as(self, employee_id: int, role: Role | None = None) -> bool:
        """Whether this token may search/chat as this employee (role from EMPLOYEES; None: not known yet)."""
        if self.employee_id is not None:
            return employee_id == self.employee_id
        if self.employee_ids is not None and employee_id not in self.employee_ids:
            return False
        return self.roles is None or role is None or role in self.roles


class TokenConfigError(ValueError):
    """RAG_API_TOKENS or RAG_API_TOKEN_SCOPES is malformed."""


EmployeeId = Annotated[int, Field(strict=True, gt=0, le=MAX_ID)]


class _ScopedToken(BaseModel):
    """One entry of RAG_API_TOKEN_SCOPES."""

    model_config = ConfigDict(extra="forbid")
    token: Annotated[str, Field(min_length=1)]
    scope: Permission
    name: str | None = None
    employee_ids: Annotated[list[EmployeeId], Field(min_length=1)] | None = None
    roles: Annotated[list[Role], Field(min_length=1)] | None = None
    employee_id: EmployeeId | None = None

    @model_validator(mode="after")
    def _limits_fit_the_scope(self) -> _ScopedToken:
        if self.scope != "bot" and (self.employee_ids or self.roles):
            raise ValueError("employee_ids and roles limit bot tokens; an admin token is unrestricted and a user "
                             "token is bound to its employee_id")
        if (self.scope == "user") != (self.employee_id is not None):
            raise ValueError("a user token needs employee_id (the one employee it acts as), and only a user "
                             "token has one")
        return self


_SCOPES = TypeAdapter(list[_ScopedToken])


def token_digest(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).digest()


def _entry_digest(entry: str) -> tuple[bytes, bool]:
    """(digest, is_plain) of a configured entry: ``sha256:<64 hex>`` or the token itself."""
    if entry.startswith(HASH_PREFIX):
        hex_digest = entry.removeprefix(HASH_PREFIX)
        if not _HEX_DIGEST.fullmatch(hex_digest):
            raise TokenConfigError("a sha256: token entry needs exactly 64 hex digits after the prefix")
        return bytes.fromhex(hex_digest), False
    return token_digest(entry), True


def parse_grants(api_tokens: str, token_scopes: str) -> tuple[TokenGrant, ...]:
    """RAG_API_TOKENS (comma-separated, each full admin) plus RAG_API_TOKEN_SCOPES (a JSON list)."""
    grants = []
    for i, entry in enumerate(e.strip() for e in api_tokens.split(",")):
        if entry:
            digest, plain = _entry_digest(entry)
            grants.append(TokenGrant(f"RAG_API_TOKENS[{i}]", "admin", digest, plain=plain))
    if token_scopes.strip():
        try:
            entries = _SCOPES.validate_python(json.loads(token_scopes))
        except (json.JSONDecodeError, ValidationError) as exc:
            # Never echo the input: it may hold plain tokens.
            raise TokenConfigError(f"RAG_API_TOKEN_SCOPES is not a valid JSON list of token entries: "
                                   f"{_safe_reason(exc)}") from None
        for i, e in enumerate(entries):
            digest, plain = _entry_digest(e.token)
            grants.append(TokenGrant(
                e.name or f"RAG_API_TOKEN_SCOPES[{i}]", e.scope, digest,
                frozenset(e.employee_ids) if e.employee_ids else None,
                frozenset(e.roles) if e.roles else None, plain, e.employee_id,
            ))
    digests = [g.digest for g in grants]
    if len(set(digests)) != len(digests):
        raise TokenConfigError("the same token is configured twice (its scope would be ambiguous)")
    return tuple(grants)


def _safe_reason(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        return "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors(include_input=False))
    return type(exc).__name__


def csrf_token(token: str) -> str:
    """The anti-CSRF value of a console session: only the console's pages, served to the token's holder,
    carry it. Keyed by the token itself, so neither a configured digest nor the value reveals the token."""
    return hmac.new(token.encode("utf-8", "surrogatepass"), b"rag-console-csrf", hashlib.sha256).hexdigest()


def csrf_matches(token: str, offered: str | None) -> bool:
    return offered is not None and hmac.compare_digest(csrf_token(token).encode(), offered.encode("utf-8", "replace"))


def match(grants: tuple[TokenGrant, ...], offered: str) -> TokenGrant | None:
    """The grant of the offered token, comparing with every digest so timing tells nothing."""
    digest = token_digest(offered)
    found = None
    for grant in grants:
        if hmac.compare_digest(digest, grant.digest) and found is None:
            found = grant
    return found
