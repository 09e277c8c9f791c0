"""The one list envelope of every collection endpoint, and the query models that page and filter it.

Every list answers ``{"items": [...], "total": N, "next_cursor": "..." | null}``: ``total`` counts every
row that matches the filters, ``next_cursor`` (opaque, keyset: app/paging.py) gives the next page when
sent back as ``?cursor=`` with the same filters. Query parameters are a pydantic model with
``extra="forbid"``: an unknown parameter — a misspelt filter such as ``?asignee_id=`` — is a 422 naming
it, never silently ignored (it would return the unfiltered list).
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, create_model

from app.api.types import JSON_MAX_ID
from app.paging import CURSOR_PATTERN, MAX_CURSOR_CHARS, Listing

# Ids in a query string (a string to parse, so not strict like the body's Id).
QueryId = Annotated[int, Field(gt=0, le=JSON_MAX_ID)]
Cursor = Annotated[str | None, Field(
    max_length=MAX_CURSOR_CHARS, pattern=CURSOR_PATTERN,
    description="the next_cursor of the previous page, exactly as it came (keep the same filters); omit it for the "
                "first page. A cursor of another list or other filters is a 422")]


class ListQuery(BaseModel):
    """Paging parameters; a list endpoint's own filters are added to a subclass."""

    model_config = ConfigDict(extra="forbid")


def query_model(name: str, max_limit: int, default_limit: int, fields: dict[str, Any]) -> type[BaseModel]:
    """A list endpoint's query parameters: ``limit``, ``cursor`` and its filters (each optional)."""
    return create_model(
        name, __base__=ListQuery, __module__=__name__,
        limit=(Annotated[int, Field(ge=1, le=max_limit, description="rows per page")], default_limit),
        cursor=(Cursor, None), **fields)


def page_model(item: type[BaseModel], name: str) -> type[BaseModel]:
    """The envelope of a list of ``item``."""
    return create_model(
        name, __module__=__name__,
        items=(list[item], Field(description="this page's rows, in the list's order")),  # type: ignore[valid-type]
        total=(int, Field(description="how many rows match the filters in all pages, counted with this page")),
        next_cursor=(str | None, Field(description="send it back as ?cursor= (with the same filters) for the next "
                                                   "page; null on the last page")))


def envelope(listing: Listing[Any], convert=lambda item: item) -> dict[str, Any]:
    return {"items": [convert(item) for item in listing.items], "total": listing.total,
            "next_cursor": listing.next_cursor}
