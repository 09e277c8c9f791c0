"""Why can (or can't) this employee see this: the operator console's access explainer.

A question is searched twice with the same vector, scope, mode and k: as the employee (exactly the
engine's search, access rule in the query) and with the rule off. Each hit gets the rule's verdict
for the employee (app.rag.access.explain, computed by the same ``is_visible`` the rule is); the hits
of the second search the employee may not see are the withheld ones. Owners are read from the source
rows, which move a chunk's audience in the writer's own transaction (DESIGN.md, Write path 5), and under
RAG_ACCESS_RULE=project a task seen through a membership names it ("member of Payments Platform since
2026-12-01", from PROJECT_MEMBERS), so a verdict is about the data as it is now. tests/conformance/test_access_explainer.py proves on random
data that every verdict agrees with what the employee's search returns.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from app.domain import Caller, Role, Scope, SearchHit, SearchMode, SourceType
from app.engines.base import Engine
from app.entities import EMPLOYEES, PROJECTS
from app.rag.access import Verdict, explain
from app.rag.chunking import identity
from app.rag.refs import EntityRef


@dataclass(frozen=True)
class ExplainedHit:
    hit: SearchHit
    verdict: Verdict


@dataclass(frozen=True)
class SearchExplanation:
    caller: Caller
    caller_name: str
    answered_by: str
    visible: list[ExplainedHit]  # the employee's own results, as search returns them
    withheld: list[ExplainedHit]  # hits of the same search with the rule off that the employee may not see
    considered: int  # hits of the search with the rule off (withheld ones among them)


@dataclass(frozen=True)
class EntityExplanation:
    caller: Caller
    caller_name: str
    source_type: SourceType
    source_id: int
    exists: bool
    verdict: Verdict | None  # None when there is no such entity


class Names:
    """Employee names for the reasons ("assigned to Ana Garcia"), each read once."""

    def __init__(self, engine: Engine) -> None:
        self._engine, self._cache = engine, {}

    def __call__(self, employee_id: int) -> str:
        if employee_id not in self._cache:
            row = self._engine.get(EMPLOYEES, employee_id)
            self._cache[employee_id] = (" ".join(p for p in (row["first_name"], row["last_name"]) if p)
                                        if row else f"employee #{employee_id} (deleted)")
        return self._cache[employee_id]


class Memberships:
    """The words of the membership that grants a task ("member of Payments Platform since 2026-12-01")."""

    def __init__(self, engine: Engine, caller: Caller) -> None:
        self._engine, self._caller, self._cache = engine, caller, {}

    def __call__(self, project_id: int) -> str:
        if project_id not in self._cache:
            row = self._engine.get(PROJECTS, project_id)
            name = row["name"] if row else f"project #{project_id}"
            member = self._engine.project_membership(project_id, self._caller.employee_id)
            since = f" since {member.added_at.date().isoformat()}" if member is not None else ""
            self._cache[project_id] = f"member of {name}{since}"
        return self._cache[project_id]


Owner = tuple[int | None, int | None, bool]  # the owner a chunk carries, its project, and whether it is restricted


def owners(engine: Engine, wanted: Iterable[EntityRef]) -> dict[EntityRef, Owner]:
    """The owner and the project each existing entity's chunks carry (None: none), and whether the tracker restricts
    it (a task's TASKS.RESTRICTED); a missing entity is absent."""
    by_type: dict[str, list[int]] = defaultdict(list)
    for source_type, source_id in dict.fromkeys(wanted):
        by_type[source_type].append(source_id)
    found: dict[EntityRef, Owner] = {}
    for source_type, ids in by_type.items():
        for source_id, record in engine.load_records(source_type, ids).items():  # type: ignore[arg-type]
            owner, project_id = identity(record)[2:4]
            restricted = getattr(record, "restricted", False)
            found[(source_type, source_id)] = (owner, project_id, restricted)  # type: ignore[index]
    return found


def _verdict(caller: Caller, ref: EntityRef, owner_of: dict[EntityRef, Owner], names: Names,
             memberships: Memberships) -> Verdict | None:
    if ref not in owner_of:
        return None
    owner, project_id, restricted = owner_of[ref]
    return explain(caller, ref[0], owner, names, project_id, memberships, restricted)


def explain_search(engine: Engine, caller: Caller, question: str, k: int, scope: Scope,
                   mode: SearchMode) -> SearchExplanation:
    question = question.strip()
    if not question:
        raise ValueError("the question is empty")
    names, memberships = Names(engine), Memberships(engine, caller)
    vector = engine.embed_query(question)
    own = engine.search(vector, question, caller, k, scope, mode)
    # The rule off: an admin sees every chunk (the employee id only names who is being explained).
    everyone = engine.search(vector, question, Caller(caller.employee_id, Role.ADMIN), k, scope, mode)

    owner_of = owners(engine, [(h.source_type, h.source_id) for h in [*own.hits, *everyone.hits]])

    def explained(hit: SearchHit) -> ExplainedHit:
        verdict = _verdict(caller, (hit.source_type, hit.source_id), owner_of, names, memberships)
        return ExplainedHit(hit, verdict or Verdict(False, f"{hit.source_type} #{hit.source_id} no longer exists"))

    withheld = [e for e in map(explained, everyone.hits) if not e.verdict.visible]
    return SearchExplanation(caller, names(caller.employee_id), own.answered_by,
                             [explained(hit) for hit in own.hits], withheld, len(everyone.hits))


def explain_entity(engine: Engine, caller: Caller, source_type: SourceType, source_id: int) -> EntityExplanation:
    names, ref = Names(engine), (source_type, source_id)
    verdict = _verdict(caller, ref, owners(engine, [ref]), names, Memberships(engine, caller))
    return EntityExplanation(caller, names(caller.employee_id), source_type, source_id, verdict is not None, verdict)
