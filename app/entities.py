"""The tracker's source tables as data: which identifiers CRUD may splice into SQL text.

Engines build INSERT/UPDATE/SELECT text only from these names (checked against
``IDENTIFIER`` at import); every value travels as a bind.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

IDENTIFIER = re.compile(r"[A-Z][A-Z0-9_]{0,29}")
BIND_STEM = re.compile(r"[a-z][a-z0-9_]{0,24}")

# How a list filter compares its column: equal, equal ignoring case (labels such as status), empty,
# below / at least (dates: "due after D" is ">= D + 1 day", so a DATE with a time of day on D stays out).
FilterOp = Literal["eq", "eq_ci", "null", "lt", "ge"]
FILTER_OPS: tuple[FilterOp, ...] = ("eq", "eq_ci", "null", "lt", "ge")


@dataclass(frozen=True)
class Condition:
    """One filter of a record list: ``column`` ``op`` ``value``. The engines splice only the column (an
    EntitySpec identifier) and a fixed operator into SQL; ``name`` (a plain lower-case word, the filter's
    API name) names the bind that carries the value."""

    name: str
    column: str
    op: FilterOp
    value: object = None

    def __post_init__(self) -> None:
        if not BIND_STEM.fullmatch(self.name):
            raise ValueError(f"unsafe bind name {self.name!r}")
        if self.op not in FILTER_OPS:
            raise ValueError(f"unknown filter operator {self.op!r}")
        if (self.value is None) != (self.op == "null"):
            raise ValueError(f"filter {self.name}: only the 'null' operator goes without a value")


@dataclass(frozen=True)
class EntitySpec:
    name: str  # URL segment: /api/v1/<name>
    table: str
    pk: str
    columns: tuple[str, ...]  # writable columns, in table order
    date_columns: tuple[str, ...] = ()
    # Columns holding a time of day (UTC, naive): ISO text in SQLite, TIMESTAMP in Oracle.
    time_columns: tuple[str, ...] = ()
    # The column keeping an imported row's key in its source (unique with SOURCE; app/sources finds rows by it).
    external: str | None = None

    def __post_init__(self) -> None:
        for ident in (self.table, self.pk, *self.columns):
            if not IDENTIFIER.fullmatch(ident):
                raise ValueError(f"unsafe SQL identifier {ident!r} in entity {self.name}")
        unknown = (set(self.date_columns) | set(self.time_columns)) - set(self.columns)
        if unknown:
            raise ValueError(f"date or time columns {unknown} are not columns of {self.name}")
        if self.external is not None and not {self.external, "SOURCE"} <= set(self.columns):
            raise ValueError(f"{self.name}: an external key needs the columns {self.external} and SOURCE")

    @property
    def all_columns(self) -> tuple[str, ...]:
        return (self.pk, *self.columns)

    def check_columns(self, names) -> None:
        unknown = set(names) - set(self.columns)
        if unknown:
            raise ValueError(f"unknown column(s) for {self.name}: {', '.join(sorted(unknown))}")

    def check_conditions(self, conditions) -> None:
        """Every condition names a column of this entity, and no two share a bind name."""
        self.check_columns([c.column for c in conditions])
        names = [c.name for c in conditions]
        if len(set(names)) != len(names):
            raise ValueError(f"two filters of {self.name} share a name: {names}")


# SOURCE and the external key (EXTERNAL_KEY, or EXTERNAL_ID for a person) are set together or not at all: NULL
# for native rows, "jira:https://acme.atlassian.net" / "github:octo/repo" and the tracker's key for imported ones.
EMPLOYEES = EntitySpec(
    "employees", "EMPLOYEES", "EMPLOYEE_ID",
    ("FIRST_NAME", "LAST_NAME", "EMAIL", "ROLE", "TELEGRAM_ID", "SOURCE", "EXTERNAL_ID"),
    external="EXTERNAL_ID",
)
PROJECTS = EntitySpec(
    "projects", "PROJECTS", "PROJECT_ID",
    ("NAME", "STATUS", "DESCRIPTION", "START_DATE", "END_DATE", "SOURCE", "EXTERNAL_KEY"),
    date_columns=("START_DATE", "END_DATE"), external="EXTERNAL_KEY",
)
SPRINTS = EntitySpec(
    "sprints", "SPRINTS", "SPRINT_ID",
    ("PROJECT_ID", "NAME", "STATUS", "GOAL", "START_DATE", "END_DATE", "SOURCE", "EXTERNAL_KEY"),
    date_columns=("START_DATE", "END_DATE"), external="EXTERNAL_KEY",
)
# An imported task also keeps its issue type and the tracker's status name where it differs from STATUS. Every task
# may have the tracker fields of issue 31 (V13 / Oracle V18): reporter, created / updated / resolved times,
# resolution, environment, parent (its key, and the task when it is here) and who resolved it; and the tracker's own
# priority name and rank (V16 / Oracle V22: "Major", 3; PRIORITY stays our level).
# LABELS, COMPONENTS, FIX_VERSIONS and AFFECTS_VERSIONS are multi-valued (MULTI_VALUED): the engines take and return
# them as lists, keep one TASK_VALUES row per value (the queryable truth) and write the column from the same list
# as the display text the chunk shows ("backend, refunds"); no other writer sets those columns.
TASKS = EntitySpec(
    "tasks", "TASKS", "TASK_ID",
    ("TITLE", "DESCRIPTION", "STATUS", "PRIORITY", "SPRINT_ID", "PROJECT_ID", "ASSIGNEE_ID",
     "STORY_POINTS", "ESTIMATED_HOURS", "EXPECTED_END_DATE", "SOURCE", "EXTERNAL_KEY", "ISSUE_TYPE", "STATUS_NAME",
     "LABELS", "FIX_VERSIONS", "COMPONENTS", "REPORTER_ID", "CREATED_AT", "UPDATED_AT", "RESOLVED_AT", "RESOLUTION",
     "ENVIRONMENT", "AFFECTS_VERSIONS", "PARENT_KEY", "PARENT_ID", "RESOLVED_BY_ID", "PRIORITY_NAME", "PRIORITY_RANK"),
    date_columns=("EXPECTED_END_DATE",), time_columns=("CREATED_AT", "UPDATED_AT", "RESOLVED_AT"),
    external="EXTERNAL_KEY",
)
# A multi-valued TASKS column -> its TASK_VALUES.FIELD.
MULTI_VALUED = {"LABELS": "LABEL", "COMPONENTS": "COMPONENT", "FIX_VERSIONS": "FIX_VERSION",
                "AFFECTS_VERSIONS": "AFFECTS_VERSION"}
# An imported comment keeps its id in the tracker (Jira comment id, GitHub comment id), so an edit finds its row.
COMMENTS = EntitySpec("comments", "COMMENTS", "COMMENT_ID",
                      ("TASK_ID", "AUTHOR_ID", "BODY", "CREATED_AT", "SOURCE", "EXTERNAL_KEY"), external="EXTERNAL_KEY")
DOCUMENTS = EntitySpec(
    "documents", "DOCUMENTS", "DOCUMENT_ID", ("TITLE", "BODY", "PROJECT_ID", "OWNER_EMPLOYEE_ID", "DOC_TYPE")
)

ENTITIES: dict[str, EntitySpec] = {
    e.name: e for e in (EMPLOYEES, PROJECTS, SPRINTS, TASKS, COMMENTS, DOCUMENTS)
}

# The bot's conversation tables (app/engines/*/conversations.py). Not CRUD entities: they are not in
# ENTITIES (no generic routes, not source tables of the erasure proof), only named for error messages.
CONVERSATIONS = EntitySpec("conversations", "CONVERSATIONS", "CONVERSATION_ID",
                           ("EMPLOYEE_ID", "TITLE", "RAG_SCOPE", "PINNED_PROJECT_ID"))
# A task's links (TASK_LINKS, V11 / Oracle V16): written by replace_task_links, never by the generic CRUD.
TASK_LINKS = EntitySpec("task_links", "TASK_LINKS", "LINK_ID", ("TASK_ID", "LINK_TYPE", "TARGET_KEY", "TARGET_TASK_ID"))
# A task's values (TASK_VALUES, V13 / Oracle V18): written with the task (MULTI_VALUED), never by the generic CRUD.
TASK_VALUES = EntitySpec("task_values", "TASK_VALUES", "TASK_ID", ("FIELD", "VALUE"))
# Every sprint a task was in (TASK_SPRINTS, V16 / Oracle V22): written by replace_task_sprints, never by the CRUD.
TASK_SPRINTS = EntitySpec("task_sprints", "TASK_SPRINTS", "TASK_ID", ("SPRINT_ID",))
SYNC_CURSORS = EntitySpec("sync_cursors", "SYNC_CURSORS", "SOURCE", ("CURSOR_VALUE",))
MESSAGES = EntitySpec("messages", "MESSAGES", "MESSAGE_ID", ("CONVERSATION_ID", "ROLE", "CONTENT", "CITATIONS"))
