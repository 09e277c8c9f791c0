"""The shared part of the Oracle statements: the Statement type, the IN-list and model-name helpers, and the
index names several rooms splice. Each statement itself lives in its room's module beside this one (docs/ORACLE.md
lists them): schema_statements (migrations, the model, the indexes, health), record_statements (callers, CRUD, source
loading, imported rows, a task's values), indexing_statements (the queue, the worker's claim and writes, status,
backfill), search_statements (the vector and text arms), conversation_statements (conversations and what the model's
tools read), settings_statements (RAG_SETTINGS, the model mark, project summaries), erasure_statements (an employee's
erasure and its proof), doctor_statements (`ragctl oracle doctor`'s scratch statements), and tracker_statements (the
typed tracker query).

Each statement is a named constant or a small builder, with the FACTS.md section it rests on
(../shared/oracle/FACTS.md; tests/oracle/golden/ holds the exact text of each, reviewed against it).
Only three kinds of text are ever spliced: the embedding model name (validated as a plain
identifier by app.config.Settings and again here), EntitySpec identifiers (validated at import by
app.entities), and fragments built here and in the rooms whose values travel as named binds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from app.config import PLAIN_IDENTIFIER

VECTOR_INDEX = "RAG_CHUNK_EMB_IDX"
TEXT_INDEX = "RAG_CHUNK_TEXT_IDX"


def checked_model(model_name: str) -> str:
    """The model name as it may appear in SQL text: a plain, unquoted identifier (FACTS.md §2)."""
    if not PLAIN_IDENTIFIER.fullmatch(model_name):
        raise ValueError(f"model name {model_name!r} is not a plain identifier")
    return model_name.upper()


@dataclass(frozen=True)
class Statement:
    """SQL text plus its named binds (values only: never identifiers)."""

    sql: str
    binds: dict[str, object] = field(default_factory=dict)


def in_list(prefix: str, values: Sequence[object]) -> tuple[str, dict[str, object]]:
    """``(:p0, :p1, ...)`` and its binds; callers keep lists at or under 1000 (ORA-01795)."""
    if not values:
        raise ValueError("an IN list needs at least one value")
    names = [f"{prefix}{i}" for i in range(len(values))]
    return "(" + ", ".join(f":{n}" for n in names) + ")", dict(zip(names, values))


# The Text index's token tables: $I (the inverted list) and, when the index stages new rows (STAGE_ITAB), $G, which
# has the $I columns (DOC 12.1 ccapp "STAGE_ITAB": "$G table and $H B-tree index are equivalent to $I and $X").
# DR$<index>$I with TOKEN_TEXT (uppercase by default) is read in public code on real databases; that a 26ai SEARCH
# INDEX keeps the name is what the doctor's "text tokens" check proves (REVIEW-2 W9).
TEXT_TOKEN_TABLES = (f"DR${TEXT_INDEX}$G", f"DR${TEXT_INDEX}$I")
