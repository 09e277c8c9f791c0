"""Parse and validate a search scope from user input (API body or CLI flags)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from app.domain import MAX_ID, SOURCE_TYPES, ProjectScope, Scope, SourceType

MAX_DOC_TYPE_LENGTH = 40  # DOCUMENTS.DOC_TYPE holds 40 characters (both engines, the API's Label)
MAX_DOC_TYPES = 100  # one bind each: far below Oracle's 1000-element IN list (ORA-01795)
_DOC_TYPE = re.compile(r"^[A-Za-z0-9_ -]+$")
# The blanks a type is trimmed of: ASCII whitespace, so the triggers that copy a document's type onto its
# chunks at once compute the same key in SQL (migrations/sqlite/V10, migrations/oracle/V14).
DOC_TYPE_BLANKS = " \t\n\r\f\v"


class ScopeError(ValueError):
    """The requested scope is malformed; the message says which part and why."""


def parse_project(value: str | int | None) -> ProjectScope:
    if value is None:
        return "all"
    if isinstance(value, int) and not isinstance(value, bool):
        if not 0 < value <= MAX_ID:
            raise ScopeError(f"project must be a positive id, 'none' or 'all', got {value}")
        return value
    text = str(value).strip().lower()
    if text in ("none", "all"):
        return text  # type: ignore[return-value]
    if text.isdigit() and 0 < int(text) <= MAX_ID:
        return int(text)
    raise ScopeError(f"project must be a positive id, 'none' or 'all', got {value!r}")


def parse_source_types(values: str | Iterable[str] | None) -> tuple[SourceType, ...] | None:
    if values is None:
        return None
    items = values.split(",") if isinstance(values, str) else list(values)
    cleaned = [v.strip().lower() for v in items if v and v.strip()]
    if not cleaned:
        raise ScopeError("source types, when given, must name at least one of " + ", ".join(SOURCE_TYPES))
    unknown = sorted(set(cleaned) - set(SOURCE_TYPES))
    if unknown:
        raise ScopeError(f"unknown source type(s) {', '.join(unknown)}; known: {', '.join(SOURCE_TYPES)}")
    # A fixed order keeps the generated SQL (and its golden text) stable.
    return tuple(t for t in SOURCE_TYPES if t in cleaned)


def doc_type_key(value: str | None) -> str | None:
    """A document type as chunks store it and scopes name it: trimmed of ASCII blanks and upper case.

    A type no scope can name (blank, longer than 40 characters, characters outside letters, digits,
    space, ``_`` and ``-``) becomes None, like a document without a type: no doc-type scope selects
    it either way, and the stored value always fits the column.
    """
    if value is None:
        return None
    key = value.strip(DOC_TYPE_BLANKS)
    # Checked before upper-casing: upper() maps some non-ASCII letters into ASCII ('ß' -> 'SS').
    return key.upper() if len(key) <= MAX_DOC_TYPE_LENGTH and _DOC_TYPE.fullmatch(key) else None


def parse_doc_types(values: str | Iterable[str] | None) -> tuple[str, ...] | None:
    if values is None:
        return None
    items = values.split(",") if isinstance(values, str) else list(values)
    if not items:
        raise ScopeError("document types, when given, must name at least one type")
    if len(items) > MAX_DOC_TYPES:
        raise ScopeError(f"at most {MAX_DOC_TYPES} document types, got {len(items)}")
    keys = set()
    for item in items:
        key = doc_type_key(item) if isinstance(item, str) else None
        if key is None:
            raise ScopeError(
                f"document type {item!r} must be 1-{MAX_DOC_TYPE_LENGTH} letters, digits, spaces, '_' or '-'"
            )
        keys.add(key)
    # Sorted: a stable order keeps the generated SQL (and its golden text) stable.
    return tuple(sorted(keys))


def build_scope(
    project: str | int | None = None,
    sprint_id: int | None = None,
    source_types: str | Iterable[str] | None = None,
    doc_types: str | Iterable[str] | None = None,
) -> Scope:
    if sprint_id is not None and (isinstance(sprint_id, bool) or not 0 < sprint_id <= MAX_ID):
        raise ScopeError(f"sprint must be a positive id, got {sprint_id}")
    return Scope(parse_project(project), sprint_id, parse_source_types(source_types), parse_doc_types(doc_types))
