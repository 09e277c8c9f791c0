"""Who is asking, for every face (REST, MCP, the OpenAI-compatible API): the token decides, never the prompt.

A token bound to one employee (scope ``user``) always asks as that employee; a request naming anyone
else is refused. An ``admin`` or ``bot`` token names the asker (``employee_id`` or ``telegram_id``) and
may act only for the employees its grant allows. The role always comes from EMPLOYEES.
"""

from __future__ import annotations

from app.auth import TokenGrant
from app.domain import MAX_ID, Caller, is_id
from app.engines.base import Engine
from app.services.search import UnknownCallerError, resolve_caller


class ForbiddenAskerError(PermissionError):
    """This token may not act on behalf of that person (answered 403, and the same whether they exist)."""


class AskerRequiredError(ValueError):
    """An admin or bot token must say who is asking."""


def resolve_asker(engine: Engine, grant: TokenGrant, employee_id: int | None = None,
                  telegram_id: str | None = None) -> Caller:
    """The asker under this grant. UnknownCallerError (a LookupError) when nobody has that id.

    A token limited to some employees (by id or role) gets the same 403, naming what it asked for, for
    anyone outside its reach, whether that person exists or not: it cannot probe which ids or Telegram
    ids exist, which are managers, or which employee a Telegram id is. An id outside its list is refused
    before the lookup; a role limit needs the row.
    """
    if employee_id is not None and telegram_id is not None:
        raise ValueError("give employee_id or telegram_id, not both")
    if employee_id is not None and not is_id(employee_id):
        # The REST schemas bound it; an MCP argument is only a JSON integer, and the engine cannot bind a larger one.
        raise ValueError(f"employee_id must be a positive integer (at most {MAX_ID}), got {employee_id!r}")
    if grant.employee_id is not None:
        return _bound(engine, grant, employee_id, telegram_id)
    if employee_id is None and telegram_id is None:
        raise AskerRequiredError("give employee_id or telegram_id: who is asking (only a token bound to one "
                                 "employee may leave it out)")
    asked = _asked(employee_id, telegram_id)
    if employee_id is not None and not grant.may_act_as(employee_id):
        raise _forbidden(asked)
    try:
        caller = resolve_caller(engine, employee_id, telegram_id)
    except UnknownCallerError:
        if grant.limited:
            raise _forbidden(asked) from None
        raise
    if not grant.may_act_as(caller.employee_id, caller.role):
        raise _forbidden(asked)
    return caller


def _bound(engine: Engine, grant: TokenGrant, employee_id: int | None, telegram_id: str | None) -> Caller:
    """A user token's own employee; naming anyone else (or a Telegram id that is not theirs) is a 403."""
    assert grant.employee_id is not None
    if employee_id is not None and employee_id != grant.employee_id:
        raise _forbidden(_asked(employee_id, None))
    if telegram_id is not None:
        named = engine.caller_by_telegram(telegram_id)
        if named is None or named.employee_id != grant.employee_id:
            raise _forbidden(_asked(None, telegram_id))
    return resolve_caller(engine, grant.employee_id)


def _asked(employee_id: int | None, telegram_id: str | None) -> str:
    return f"employee {employee_id}" if employee_id is not None else f"Telegram user {telegram_id}"


def _forbidden(who: str) -> ForbiddenAskerError:
    return ForbiddenAskerError(f"this token may not act on behalf of {who}")
