"""The console's query parameters, parsed into what the services take; bad input is a ConsoleError (4xx)
naming the field, and nothing is asked of the database first. Pure: no I/O."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from app.api.types import JSON_MAX_ID
from app.console.session import ConsoleError
from app.domain import MAX_QUESTION_CHARS, SEARCH_MODES, SOURCE_TYPES, Scope, SearchMode, SourceType
from app.rag.scope import ScopeError, build_scope

MAX_TOP_K = 50


class Params:
    def __init__(self, query: Mapping[str, str]) -> None:
        self._query = query

    def text(self, name: str, max_chars: int = MAX_QUESTION_CHARS) -> str | None:
        value = (self._query.get(name) or "").strip()
        if len(value) > max_chars:
            raise ConsoleError(422, f"{name} is longer than {max_chars} characters")
        return value or None

    def id(self, name: str) -> int | None:
        return self.number(name, 1, JSON_MAX_ID)

    def number(self, name: str, low: int, high: int, default: int | None = None) -> int | None:
        value = (self._query.get(name) or "").strip()
        if not value:
            return default
        # The length before int(), which refuses (ValueError) a string of more than 4300 digits.
        digits = value.lstrip("0")
        if not (value.isascii() and value.isdigit()) or len(digits) > len(str(high)) or not low <= int(value) <= high:
            raise ConsoleError(422, f"{name} must be a whole number from {low} to {high}, got {value[:40]!r}")
        return int(value)

    def choice(self, name: str, choices: Sequence[str], default: str) -> str:
        value = self._query.get(name) or default
        if value not in choices:
            raise ConsoleError(422, f"{name} must be one of {', '.join(choices)}, got {value[:40]!r}")
        return value

    def mode(self) -> SearchMode:
        return self.choice("mode", SEARCH_MODES, "hybrid")  # type: ignore[return-value]

    def source_type(self) -> SourceType | None:
        value = self._query.get("source_type") or None
        return None if value is None else self.choice("source_type", SOURCE_TYPES, "task")  # type: ignore[return-value]

    def scope(self) -> Scope:
        try:
            return build_scope(project=self._query.get("project") or "all")
        except ScopeError as exc:
            raise ConsoleError(422, str(exc)) from None
