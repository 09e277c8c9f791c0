"""The token a request carries, as the server configured it: a client checks its setup at start."""

from __future__ import annotations

from fastapi import APIRouter

from app.api.chat_schemas import TokenPublic
from app.api.deps import GrantDep

router = APIRouter(tags=["token"])


@router.get("/token", response_model=TokenPublic)
def read_token(grant: GrantDep) -> TokenPublic:
    """This token's name, scope and limits (never the token or its digest)."""
    return TokenPublic(name=grant.name, scope=grant.scope,
                       employee_ids=sorted(grant.employee_ids) if grant.employee_ids is not None else None,
                       roles=sorted(grant.roles) if grant.roles is not None else None, employee_id=grant.employee_id)
