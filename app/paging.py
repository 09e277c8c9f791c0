"""Keyset cursors for the list endpoints (pure: no I/O).

A page ends at a key (the last row's id, or its sort key); the next page is "the rows after that key",
so rows inserted meanwhile never shift a page and no row is skipped or repeated because of them (ids
are never reused, and new rows sort after the last page or before the first).

A cursor is opaque to clients: base64url of a checksum and a small JSON payload ``[version, query, key]``,
where ``query`` fingerprints the list and its filters. A cursor that was cut, altered, or issued for
another list or other filters is refused (``CursorError``, answered 422) rather than misread. The
checksum is not a signature: it catches garbled and hand-edited cursors, and a forged one could only
start a page at another key — what a page may contain is decided by the request's own filters and
access rule, never by the cursor.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from app.domain import Page

T = TypeVar("T")

VERSION = 1
MAX_CURSOR_CHARS = 512
CURSOR_PATTERN = r"^[A-Za-z0-9_-]{1,512}$"
_CHECK_BYTES = 8
_DOMAIN = b"rag-list-cursor\0"


class CursorError(ValueError):
    """Not a cursor this server issued for this list and these filters."""


def query_fingerprint(kind: str, filters: Mapping[str, Any]) -> str:
    """Names the list and its filter values (None = not filtered), so a cursor cannot cross them."""
    canonical = json.dumps([kind, sorted((k, v) for k, v in filters.items() if v is not None)],
                           default=str, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def encode(kind: str, filters: Mapping[str, Any], key: Any) -> str:
    payload = json.dumps([VERSION, query_fingerprint(kind, filters), key], separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(_check(payload) + payload).rstrip(b"=").decode("ascii")


def decode(cursor: str, kind: str, filters: Mapping[str, Any], parse: Callable[[Any], T]) -> T:
    """The key the cursor carries, as ``parse`` reads it; CursorError when it is not one issued for this list
    and filters, or ``parse`` refuses it (TypeError or ValueError)."""
    if not isinstance(cursor, str) or not 0 < len(cursor) <= MAX_CURSOR_CHARS:
        raise CursorError("the cursor is malformed: pass next_cursor exactly as a previous page returned it")
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
    except (binascii.Error, ValueError):
        raise CursorError("the cursor is malformed: pass next_cursor exactly as a previous page returned it") \
            from None
    check, payload = raw[:_CHECK_BYTES], raw[_CHECK_BYTES:]
    if len(check) < _CHECK_BYTES or not hmac.compare_digest(check, _check(payload)):
        raise CursorError("the cursor is malformed or was altered: pass next_cursor exactly as a previous page "
                          "returned it")
    try:
        version, query, key = json.loads(payload, parse_float=_not_issued, parse_constant=_not_issued)
    except (ValueError, TypeError):
        raise CursorError("the cursor is malformed") from None
    if version != VERSION:
        raise CursorError("the cursor comes from another version of this API: start again from the first page")
    if query != query_fingerprint(kind, filters):
        raise CursorError("the cursor belongs to another list or other filters: keep the filters of the page "
                          "that returned it, or start again without a cursor")
    try:
        return parse(key)
    except (TypeError, ValueError):
        raise CursorError("the cursor is malformed") from None


def _not_issued(text: str) -> Any:
    """Keys are ids, names and timestamps: a cursor holding a float (1e400 is infinity), NaN or Infinity was
    not issued here, and would reach the list's key as a value no id compares with."""
    raise ValueError(f"a cursor carries no {text}")


def _check(payload: bytes) -> bytes:
    return hashlib.sha256(_DOMAIN + payload).digest()[:_CHECK_BYTES]


@dataclass(frozen=True)
class Listing(Generic[T]):
    """What a list endpoint answers: one page, the total that matches, and the cursor of the next page."""

    items: list[T]
    total: int
    next_cursor: str | None


def listing(page: Page[T], kind: str, filters: Mapping[str, Any], key_of: Callable[[T], Any]) -> Listing[T]:
    """The page with the cursor of the rows after its last one (None on the last page)."""
    more = page.more and bool(page.items)
    return Listing(page.items, page.total, encode(kind, filters, key_of(page.items[-1])) if more else None)
