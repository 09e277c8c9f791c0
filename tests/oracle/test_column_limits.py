"""Every text the API or a service writes fits its Oracle column, read from the DDL itself.

python-oracledb binds a str as a VARCHAR2 of its UTF-8 byte length (FACTS.md §12.1), so a value the API
accepts but the column cannot hold is ORA-12899 on Oracle only. These tests parse migrations/oracle/*.sql
(CREATE TABLE, then every later ALTER TABLE ... ADD/MODIFY) and the pydantic write models, and fail when
a field's worst case (characters x 4 bytes, or its byte bound, or its characters when it only takes ASCII)
can exceed its column: VARCHAR2(n BYTE) holds n bytes, VARCHAR2(n CHAR) n characters and never more than
4000 bytes, a CLOB any str.
"""

from __future__ import annotations

import enum
import re
import typing
from dataclasses import dataclass
from pathlib import Path

import pytest
from pydantic import TypeAdapter, ValidationError

from app.api.schemas import ENTITY_SCHEMAS
from app.api.types import MaxUtf8Bytes
from app.engines.oracle import record_statements as sql
from app.entities import ENTITIES

MIGRATIONS = Path(__file__).resolve().parents[2] / "migrations" / "oracle"
VARCHAR2_MAX_BYTES = 4000  # MAX_STRING_SIZE = STANDARD, the default
UTF8_WORST = 4  # bytes per character in AL32UTF8
_NOT_COLUMNS = {"CONSTRAINT", "PRIMARY", "UNIQUE", "FOREIGN", "CHECK"}


@dataclass(frozen=True)
class Column:
    kind: str  # VARCHAR2, CLOB, TIMESTAMP, NUMBER, ...
    size: int = 0
    chars: bool = False  # VARCHAR2(n CHAR) rather than BYTE (the default length semantics)

    def holds(self, max_chars: float, max_bytes: float) -> bool:
        if self.kind == "CLOB":
            return True
        if self.chars:
            return max_chars <= self.size and max_bytes <= VARCHAR2_MAX_BYTES
        return max_bytes <= self.size


def _column(type_text: str) -> Column:
    found = re.fullmatch(r"(VARCHAR2)\((\d+)(?:\s+(BYTE|CHAR))?\)", type_text)
    if found:
        return Column("VARCHAR2", int(found[2]), found[3] == "CHAR")
    return Column(re.match(r"[A-Z0-9_]+", type_text)[0])


def _split_top_level(text: str) -> list[str]:
    parts, depth, current = [], 0, []
    for char in text:
        depth += (char == "(") - (char == ")")
        if char == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    return [*parts, "".join(current)]


def _definitions(body: str) -> dict[str, Column]:
    """`NAME TYPE ...` items of a CREATE TABLE body or an ALTER TABLE ADD/MODIFY list."""
    out = {}
    for item in _split_top_level(body):
        found = re.match(r"\s*(\w+)\s+(\w+(?:\s*\([^)]*\))?)", item.upper())
        if found and found[1] not in _NOT_COLUMNS:
            out[found[1]] = _column(re.sub(r"\s*\(", "(", found[2]))
    return out


def oracle_columns() -> dict[tuple[str, str], Column]:
    """(TABLE, COLUMN) -> type, after every migration in version order."""
    columns: dict[tuple[str, str], Column] = {}
    scripts = sorted(MIGRATIONS.glob("V*__*.sql"), key=lambda p: int(p.name[1:].split("__")[0]))
    for script in scripts:
        text = re.sub(r"--[^\n]*", "", script.read_text(encoding="utf-8"))
        for table, body in re.findall(r"CREATE TABLE (\w+) \((.*?)\n\);", text, re.DOTALL):
            columns.update({(table.upper(), c): t for c, t in _definitions(body).items()})
        for table, body in re.findall(r"ALTER TABLE (\w+) (?:ADD|MODIFY) \((.*?)\);", text, re.DOTALL):
            columns.update({(table.upper(), c): t for c, t in _definitions(body).items()})
    return columns


COLUMNS = oracle_columns()


def test_the_ddl_parser_reads_the_columns_it_must():
    assert COLUMNS[("SPRINTS", "GOAL")] == Column("VARCHAR2", 4000)
    assert COLUMNS[("TASKS", "TITLE")] == Column("VARCHAR2", 1000, chars=True)
    assert COLUMNS[("COMMENTS", "BODY")].kind == "CLOB"
    assert COLUMNS[("PROJECTS", "AUTO_SUMMARY_INPUTS")] == Column("VARCHAR2", 100)  # V11's ALTER
    assert ("EMPLOYEES", "EMPLOYEES_ROLE_CK") not in COLUMNS


# --- the API's write models -----------------------------------------------------------------------

def _metadata(annotation: object) -> list[object]:
    """Every Annotated[...] extra inside an annotation (through `X | None`)."""
    if typing.get_origin(annotation) is typing.Annotated:
        return [*annotation.__metadata__, *_metadata(annotation.__origin__)]
    return [m for arg in typing.get_args(annotation) for m in _metadata(arg)]


def _types(annotation: object) -> list[object]:
    if typing.get_origin(annotation) is typing.Annotated:
        return _types(annotation.__origin__)
    args = typing.get_args(annotation)
    return [t for arg in args for t in _types(arg)] if args else [annotation]


# Fields whose validation lets only ASCII in, with a valid sample: _ascii_only proves the claim.
ASCII_ONLY = {"telegram_id": "tg_12345"}


def _ascii_only(field: typing.Any, sample: str) -> bool:
    annotation = typing.Annotated[field.annotation, *field.metadata] if field.metadata else field.annotation
    adapter = TypeAdapter(annotation)
    adapter.validate_python(sample)
    for char in ("é", "Ω", "好", "😀"):
        with pytest.raises(ValidationError):
            adapter.validate_python(sample + char)
    return True


def worst_case(name: str, field: typing.Any) -> tuple[float, float] | None:
    """(characters, UTF-8 bytes) the field can carry at most; None for a field that is not text."""
    types = [t for t in _types(field.annotation) if t is not type(None)]
    enums = [t for t in types if isinstance(t, type) and issubclass(t, enum.Enum)]
    if enums:
        values = [str(m.value) for e in enums for m in e]
        return max(map(len, values)), max(len(v.encode()) for v in values)
    if str not in types:
        return None
    meta = [*field.metadata, *_metadata(field.annotation)]
    chars = min((m.max_length for m in meta if getattr(m, "max_length", None) is not None), default=float("inf"))
    per_char = 1 if name in ASCII_ONLY and _ascii_only(field, ASCII_ONLY[name]) else UTF8_WORST
    byte_bounds = [m.max_bytes for m in meta if isinstance(m, MaxUtf8Bytes)]
    return chars, min([chars * per_char, *byte_bounds])


def api_text_fields():
    for entity in ENTITIES.values():
        for model in ENTITY_SCHEMAS[entity.name][:2]:  # Create and Update (PATCH)
            for name, field in model.model_fields.items():
                bound = worst_case(name, field)
                if bound is not None:
                    yield pytest.param(entity.table, name.upper(), bound, id=f"{model.__name__}.{name}")


@pytest.mark.parametrize("table, column, bound", list(api_text_fields()))
def test_every_text_field_the_api_writes_fits_its_column(table, column, bound):
    chars, nbytes = bound
    assert (table, column) in COLUMNS, f"{table}.{column} is written by the API but no migration creates it"
    col = COLUMNS[(table, column)]
    assert col.holds(chars, nbytes), (
        f"{table}.{column} is {col}, but the API accepts up to {chars} characters = {nbytes} bytes in UTF-8: "
        "ORA-12899 on Oracle. Bound the field in bytes (app.api.types.MaxUtf8Bytes) or make the column a CLOB.")


def test_the_limit_check_catches_a_field_past_its_column():
    # The check itself must be able to fail: the sprint goal as it was (100,000 characters).
    from app.api.types import Text

    old = TypeAdapter(Text)
    chars = old.core_schema.get("max_length")
    assert chars == 100_000 and not COLUMNS[("SPRINTS", "GOAL")].holds(chars, chars * UTF8_WORST)
    assert not Column("VARCHAR2", 64).holds(64, 64 * UTF8_WORST)
    assert not Column("VARCHAR2", 1000, chars=True).holds(1001, 1001)


# --- text the services write ------------------------------------------------------------------------

def _service_bounds() -> dict[tuple[str, str], tuple[int, int]]:
    from app.domain import MAX_CITATIONS, MAX_ID, citations_json
    from app.rag.chunking import MAX_BYTES
    from app.rag.scope import MAX_DOC_TYPE_LENGTH
    from app.rag.summaries import fingerprint
    from app.services.conversations import TITLE_CHARS, title_of

    assert len(title_of("word " * 1000)) <= TITLE_CHARS
    longest = max((f"[{kind} #{MAX_ID}]" for kind in ("TASK", "SPRINT", "PROJECT", "DOC")), key=len)
    citations = len(citations_json([longest] * MAX_CITATIONS).encode())
    with pytest.raises(ValueError, match="at most"):
        citations_json([longest] * (MAX_CITATIONS + 1))
    inputs = len(fingerprint(_any_summary_source()))
    return {
        ("CONVERSATIONS", "TITLE"): (TITLE_CHARS, TITLE_CHARS * UTF8_WORST),
        ("CONVERSATIONS", "RAG_SCOPE"): (len(str(MAX_ID)), len(str(MAX_ID))),  # digits, 'none' or 'all'
        ("MESSAGES", "CITATIONS"): (citations, citations),  # ASCII anchors
        ("MESSAGES", "ROLE"): (len("assistant"), len("assistant")),
        ("PROJECTS", "AUTO_SUMMARY_INPUTS"): (inputs, inputs),  # hex digests
        ("RAG_CHUNK", "DOC_TYPE"): (MAX_DOC_TYPE_LENGTH, MAX_DOC_TYPE_LENGTH),  # doc_type_key: ASCII only
        ("RAG_CHUNK", "CONTENT"): (MAX_BYTES, MAX_BYTES),  # the chunker cuts in UTF-8 bytes
    }


def _any_summary_source():
    from app.domain import SummarySource

    return SummarySource(1, "好" * 400, "x", (("t", None),), None, None, None)


@pytest.mark.parametrize("table, column", sorted(_service_bounds()))
def test_every_text_a_service_writes_fits_its_column(table, column):
    chars, nbytes = _service_bounds()[(table, column)]
    assert COLUMNS[(table, column)].holds(chars, nbytes), f"{table}.{column}: {chars} characters, {nbytes} bytes"


# --- the lists the Oracle engine keeps, checked against the same DDL ---------------------------------

def test_the_engine_knows_every_clob_column_of_the_tracker():
    # errors.too_long blames ORA-01461 only on a VARCHAR2 column; a missing CLOB would be blamed wrongly.
    tables = {e.table: e for e in ENTITIES.values()}
    clobs = {(t, c) for (t, c), col in COLUMNS.items() if col.kind == "CLOB" and t in tables
             and c in tables[t].columns}
    assert clobs == sql.LOB_COLUMNS


def test_every_timestamp_column_crud_writes_is_bound_as_a_timestamp():
    # FACTS.md §12.2: a datetime binds as DATE (no fractional seconds) unless the bind says TIMESTAMP.
    written = {c for e in ENTITIES.values() for c in e.columns if COLUMNS[(e.table, c)].kind == "TIMESTAMP"}
    assert written == {"CREATED_AT", "UPDATED_AT", "RESOLVED_AT"} and written <= sql.TIMESTAMP_COLUMNS
