r"""Constrained scalar types of the API bodies, each with a JSON schema that says exactly what it accepts.

The OpenAPI schema is a contract that clients and fuzzers (schemathesis) hold the server to: every
value the schema allows must be accepted and every other refused. So trimming, patterns and bounds
are checked in Python here, on the raw value, the same way the published ``pattern`` reads it
and a fuzzer reads it as ECMA-262 does: ``$`` ends the text, and ``\s`` means another set of
characters than in Python, so the patterns below spell their character sets out).
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Annotated, Any

from pydantic import (AfterValidator, BeforeValidator, Field, GetJsonSchemaHandler, PlainSerializer, StringConstraints,
                      WithJsonSchema)
from pydantic_core import PydanticCustomError
from pydantic_core import core_schema as cs

from app.domain import MAX_QUESTION_CHARS
from app.records_model import MAX_EXTERNAL_KEY_CHARS, MAX_SOURCE_CHARS, check_external_key

# Ids in bodies, paths and queries stay within I-JSON's exact integer range (RFC 7493: ±(2**53-1)):
# JSON tools hold numbers as doubles, so a schema bound of 2**63-1 reads as "about 9.2e18" to them
# and values past the engines' 64-bit range would look valid.
JSON_MAX_ID = 2**53 - 1


def _integral(value: Any) -> Any:
    # JSON Schema counts 3.0 as an integer; strictness is for `true` and "3", not for that.
    return int(value) if isinstance(value, float) and value.is_integer() else value


# Strict: `true` or "3" is a 422 rather than silently id 1 or 3.
# (Field first: a validator placed before it would hide its bounds from the JSON schema.)
Id = Annotated[int, Field(strict=True, gt=0, le=JSON_MAX_ID), BeforeValidator(_integral)]
TopK = Annotated[int, Field(strict=True, ge=1, le=100), BeforeValidator(_integral)]
NonNegative = Annotated[float, Field(strict=True, ge=0, le=100_000)]
# Free text that feeds a chunk (docs/API.md, "Limits of a write"). Chunking is linear: 100,000 characters
# chunk in under a second in every shape measured (docs/BENCHMARKS.md, bench_chunking),
# and it is embedding ~100 chunks that sets the bound: a few seconds of the worker per write.
MAX_TEXT_CHARS = 100_000
MAX_COMMENT_CHARS = 20_000
Text = Annotated[str, StringConstraints(max_length=MAX_TEXT_CHARS)]


class MaxUtf8Bytes:
    """At most `max_bytes` bytes in UTF-8: the bound of text stored in a VARCHAR2(n BYTE) column.

    JSON Schema can only count characters, so the published maxLength is `max_bytes` (no text of
    that many bytes has more characters) and the description gives the byte bound; this check is
    the real one, the same on both engines.
    """

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> cs.CoreSchema:
        return cs.no_info_after_validator_function(self._check, handler(source))

    def __get_pydantic_json_schema__(self, schema: cs.CoreSchema, handler: GetJsonSchemaHandler) -> dict[str, Any]:
        return {**handler(schema), "description": f"at most {self.max_bytes} bytes in UTF-8 (ASCII: "
                f"{self.max_bytes} characters; accented Latin: {self.max_bytes // 2}; CJK: {self.max_bytes // 3})"}

    def _check(self, value: str) -> str:
        size = len(value.encode("utf-8", "surrogatepass"))
        if size > self.max_bytes:
            raise PydanticCustomError("string_too_long", "String should have at most {max_bytes} bytes in UTF-8, "
                                      "got {size}", {"max_bytes": self.max_bytes, "size": size})
        return value


# A sprint goal is a sentence or a short paragraph: Oracle keeps it in SPRINTS.GOAL VARCHAR2(4000 BYTE),
# and a byte-accurate bound gives a clear 422 on both engines instead of ORA-12899 on Oracle only.
MAX_GOAL_BYTES = 4000
Goal = Annotated[str, StringConstraints(max_length=MAX_GOAL_BYTES), MaxUtf8Bytes(MAX_GOAL_BYTES)]


class _Pattern:
    """Publish a pattern in the JSON schema that an AfterValidator of the same type enforces."""

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern

    def __get_pydantic_json_schema__(self, schema: cs.CoreSchema, handler: GetJsonSchemaHandler) -> dict[str, Any]:
        return {**handler(schema), "pattern": self.pattern}


# The characters str.strip() removes, spelled out so the published patterns mean the same everywhere.
PY_SPACE = "\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000"


def _full(pattern: str) -> re.Pattern[str]:
    """`pattern` (anchored with ^ and $) as ECMA-262 reads it: $ does not match before a final newline."""
    return re.compile(pattern.removeprefix("^").removesuffix("$"))


def _nonblank(value: str) -> str:
    value = value.strip()
    if not value:
        raise ValueError("must not be blank")
    return value


def line(max_length: int) -> Any:
    """Text with at least one non-space character, trimmed; at most `max_length` characters as sent."""
    return Annotated[str, StringConstraints(max_length=max_length), AfterValidator(_nonblank),
                     _Pattern(f"[^{PY_SPACE}]")]


MAX_NAME_CHARS, MAX_LABEL_CHARS = 200, 40  # a name or a search for one; a status, priority or label
Name, Title, Label, Question = line(MAX_NAME_CHARS), line(400), line(MAX_LABEL_CHARS), line(MAX_QUESTION_CHARS)
# The tracker's own priority name ("Major", TASKS.PRIORITY_NAME, 100 characters) and its place in the tracker's order
# (TASKS.PRIORITY_RANK: 1 the most important).
MAX_PRIORITY_NAME_CHARS, MAX_PRIORITY_RANK = 100, 1_000_000
PriorityName = line(MAX_PRIORITY_NAME_CHARS)
Rank = Annotated[int, Field(strict=True, ge=1, le=MAX_PRIORITY_RANK), BeforeValidator(_integral)]

EMAIL_PATTERN = f"^[^@{PY_SPACE}]+@[^@{PY_SPACE}]+\\.[^@{PY_SPACE}]+$"
_EMAIL = _full(EMAIL_PATTERN)


def _email(value: str) -> str:
    if not _EMAIL.fullmatch(value):
        raise ValueError("must look like an email address (name@example.com)")
    return value.lower()


Email = Annotated[str, StringConstraints(max_length=320), AfterValidator(_email), _Pattern(EMAIL_PATTERN)]

TELEGRAM_PATTERN = r"^[0-9A-Za-z_@]+$"
_TELEGRAM = _full(TELEGRAM_PATTERN)


def _telegram_text(value: Any) -> Any:
    # Telegram ids are numbers, but bots and the EMPLOYEES column carry them as text.
    value = _integral(value)
    if isinstance(value, int) and not isinstance(value, bool):
        if not 0 <= value <= JSON_MAX_ID:
            raise ValueError(f"a numeric telegram_id must be between 0 and {JSON_MAX_ID}")
        return str(value)
    return value


def _telegram(value: str) -> str:
    if not _TELEGRAM.fullmatch(value):
        raise ValueError("must be letters, digits, '_' or '@'")
    return value


TelegramId = Annotated[
    str,
    BeforeValidator(_telegram_text),
    StringConstraints(max_length=64),
    AfterValidator(_telegram),
    WithJsonSchema({"anyOf": [{"type": "string", "maxLength": 64, "pattern": TELEGRAM_PATTERN},
                              {"type": "integer", "minimum": 0, "maximum": JSON_MAX_ID}]}),
]

ISO_DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def _iso_day(value: Any) -> Any:
    # pydantic would also take a number (a Unix time) or a datetime string; the schema says a date.
    if isinstance(value, dt.date) or (isinstance(value, str) and ISO_DAY.fullmatch(value)):
        return value
    raise ValueError("must be a date as YYYY-MM-DD")


Day = Annotated[dt.date, BeforeValidator(_iso_day)]

# What app.rag.scope.doc_type_key accepts, as sent: trimmed, 1-40 letters, digits, spaces, _ or -.
DOC_TYPE_PATTERN = f"^[{PY_SPACE}]*[A-Za-z0-9_-]([A-Za-z0-9_ -]{{0,38}}[A-Za-z0-9_-])?[{PY_SPACE}]*$"
DocType = Annotated[str, _Pattern(DOC_TYPE_PATTERN)]


# An imported row's key in its tracker ("PAY-1210", "octo/repo#123", a Jira accountId) and the source that imported
# it ("jira:https://acme.atlassian.net"): kept exactly as sent (a sync matches them byte for byte), so no trimming;
# no control characters, no blank at either end (app.records_model.check_external_key, both engines).
_KEY_EDGE = f"[^\\x00-\\x1f\\x7f{PY_SPACE}]"
EXTERNAL_KEY_PATTERN = f"^{_KEY_EDGE}([^\\x00-\\x1f\\x7f]*{_KEY_EDGE})?$"


def _external(limit: int, what: str) -> Any:
    return Annotated[str, StringConstraints(max_length=limit), AfterValidator(lambda v: check_external_key(v, what)),
                     _Pattern(EXTERNAL_KEY_PATTERN)]


ExternalKey = _external(MAX_EXTERNAL_KEY_CHARS, "external key")
SourceName = _external(MAX_SOURCE_CHARS, "source")

# One value of a task's labels, components, fix or affects versions (TASK_VALUES.VALUE, app.engines.task_values): kept
# whole and exactly as sent, 1..200 characters, no control characters, no blank at either end; a list of at most
# app.engines.task_values.MAX_VALUES (duplicates collapse; returned in a fixed order, case-insensitive).
FieldValue = _external(200, "value")
MAX_FIELD_VALUES = 200
Values = Annotated[list[FieldValue], Field(max_length=MAX_FIELD_VALUES)]


def _utc(value: dt.datetime) -> str:
    """A stored time (naive UTC) as RFC 3339 with its zone: "2026-11-02T09:30:00Z"."""
    aware = value.replace(tzinfo=dt.timezone.utc) if value.tzinfo is None else value.astimezone(dt.timezone.utc)
    return aware.isoformat().replace("+00:00", "Z")


UtcTime = Annotated[dt.datetime, PlainSerializer(_utc, return_type=str)]
