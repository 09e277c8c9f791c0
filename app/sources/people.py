"""Who an imported person is, and what role they get: only from the tracker's stable account ids.

A tracker's users edit their own display name and e-mail, so neither may say who someone is here nor what
they may see. An imported person is the row of their source with their account id (EMPLOYEES.SOURCE +
EXTERNAL_ID: Jira's accountId or user key, GitHub's ``github:<id>``); the people-map file (RAG_SOURCES_PEOPLE_FILE)
names roles by account id. An e-mail is used only where the operator confirmed it for one account — then that
account is the team member with that e-mail (used as they are: never renamed, never re-roled by an import):

    {
      "5b10ac8d82e05b22cc7d4ef5": "MANAGER",
      "github:583231": "ADMIN",
      "JIRAUSER10100": {"email": "boss@corp.io"},
      "5b109f2e9729b51b54dc274d": {"email": "chen@corp.io", "role": "MANAGER"}
    }

(a list of ``{"account_id": …, "email": …, "role": …}`` objects says the same). A key is an account id even
when it looks like an e-mail (an old Jira Server's user key may be one): it matches that account id, never an
account whose e-mail it is. Pure: no I/O apart from reading the file.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from app.domain import Role


class PeopleMap(dict):
    """account id (lower case) → Role, with ``emails``: account id (lower case) → the e-mail the operator
    confirmed for it (lower case)."""

    def __init__(self, roles: Mapping[str, Role] | None = None, emails: Mapping[str, str] | None = None) -> None:
        super().__init__({str(k).lower(): v for k, v in (roles or {}).items()})
        self.emails = {str(k).lower(): str(v).strip().lower() for k, v in (emails or {}).items()}

    def role(self, account_id: str) -> Role | None:
        return self.get(account_id.lower())

    def confirmed_email(self, account_id: str) -> str | None:
        return self.emails.get(account_id.lower())


def as_people_map(roles: Mapping[str, Role] | None) -> PeopleMap:
    return roles if isinstance(roles, PeopleMap) else PeopleMap(roles)


def read_people_map(path: str | None) -> PeopleMap:
    """The optional people mapping file (RAG_SOURCES_PEOPLE_FILE), as the module docstring shows it. Everyone not
    named is imported as a DEVELOPER."""
    if not path:
        return PeopleMap()
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"cannot read the people mapping file {path}: {exc}") from None
    if isinstance(data, list):
        entries = [(_field(e, "account_id", path), e) for e in data]
    elif isinstance(data, dict):
        entries = list(data.items())
    else:
        raise ValueError(f"the people mapping file {path} must be a JSON object of account id -> role")
    roles, emails = {}, {}
    for who, entry in entries:
        if isinstance(entry, dict):
            if entry.get("email") is not None:
                emails[who] = _field(entry, "email", path)
            if entry.get("role") is not None:
                roles[who] = _role(entry["role"], who)
        else:
            roles[who] = _role(entry, who)
    return PeopleMap(roles, emails)


def _field(entry: Any, name: str, path: str) -> str:
    value = entry.get(name) if isinstance(entry, dict) else None
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"the people mapping file {path}: each entry names its {name} ({entry!r:.80})")
    return value.strip()


def _role(role: Any, who: str) -> Role:
    try:
        return Role(str(role).upper())
    except ValueError:
        raise ValueError(f"the people mapping file names an unknown role {role!r} for {who!r} "
                         f"(DEVELOPER, MANAGER or ADMIN)") from None
