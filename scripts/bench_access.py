#!/usr/bin/env python
"""Randomized access: leaks and short results over random writes, most of them with the worker stopped.

A random team (employees, projects, sprints, tasks, documents) is indexed once; then each case
either changes the data (reassign or unassign a task, move it to another project, re-own, publish or
re-type a document, change a role, delete a task, document, sprint or employee, add an employee
or a task) WITHOUT draining the queue, or lets the worker drain, or searches as a random employee
with a random scope (project and document types), k and mode. Every search is checked against the ground truth read from the
source tables at that moment:

* leak: a hit the caller may not see now, or a hit whose source no longer exists;
* short: fewer hits than min(k, chunks the caller may see in that scope).

Only the text of a changed source waits for the worker (DESIGN.md, Write path 5), so both counts
must be 0 whether or not the worker has run since the change.

``--rule project`` (RAG_ACCESS_RULE=project, issue 32) adds memberships to the writes (a PUT, a DELETE, a
tracker sync's replace of one source's set, a deleted or added project) and checks each search, and a typed
tracker query (count and group-by over every visible task) and lookups by id beside it, against an
independent model of the rule: a developer also sees every task of a project PROJECT_MEMBERS says they belong
to, except a task the tracker restricts (TASKS.RESTRICTED, a Jira issue-security level): the writes also set and
clear that flag (an import's ``set_task_restricted``), and the model keeps the flags it wrote, read from no engine. The caller is resolved by the engine (as every face does), the model reads the tables. The suite runs a few hundred cases
(tests/conformance/test_access_randomized.py, both engines); this script runs many more on SQLite,
writes docs/bench/bench_access.json and appends a row to docs/BENCHMARKS.md.

Usage: .venv/bin/python scripts/bench_access.py [--cases 10000] [--seed 7] [--rule assignee|project] [--burst 5]
       [--drain-every 0.02]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.domain import MEMBER_SOURCES, Caller, Role, Scope  # noqa: E402
from app.embedding.tokens import count_tokens  # noqa: E402
from app.engines.base import ConflictError, Engine  # noqa: E402
from app.entities import DOCUMENTS, EMPLOYEES, PROJECTS, SPRINTS, TASKS  # noqa: E402
from app.rag.scope import doc_type_key  # noqa: E402
from app.services.indexing import drain  # noqa: E402
from app.services.records import iter_records  # noqa: E402

WORDS = "login invoice deploy payroll retro cache api factura despliegue timeout migration release".split()
ROLES = ("DEVELOPER", "DEVELOPER", "DEVELOPER", "MANAGER")
# As writers send them: some need trimming or case folding, some name no scope (app.rag.scope.doc_type_key).
DOC_TYPES = ("WIKI", "MEETING_NOTES", " wiki ", "Runbook", None, "not a type!")
DOC_TYPE_SCOPES = (None, None, ("WIKI",), ("MEETING_NOTES", "RUNBOOK"))


@dataclass(frozen=True)
class Seen:
    """What a face returned for one question: the sources it named (hits, citations, anchors in its text),
    and whether they are a search's whole top k in the asked scope (then it must not come up short either;
    otherwise the face answered in its own scope and k, and only leaks are checked)."""

    sources: list[tuple[str, int]]
    complete: bool


class Face(Protocol):
    """A face of the service (MCP, the OpenAI-compatible API) asked as one employee."""

    name: str

    def ask(self, caller: Caller, question: str, k: int, scope: Scope, mode: str) -> Seen: ...


@dataclass
class Tally:
    cases: int = 0
    searches: int = 0
    face_searches: int = 0
    searches_with_worker_stopped: int = 0
    writes: int = 0
    drains: int = 0
    membership_writes: int = 0
    restricted_writes: int = 0  # TASKS.RESTRICTED set or cleared (project rule)
    tracker_checks: int = 0
    lookup_checks: int = 0
    leaks: int = 0
    short: int = 0
    wrong: int = 0  # a count, group or lookup that differs from the model (a leak or a loss)
    failures: list[str] = field(default_factory=list)

    def fail(self, kind: str, detail: str) -> None:
        setattr(self, kind, getattr(self, kind) + 1)
        if len(self.failures) < 20:
            self.failures.append(f"{kind}: {detail}")


class World:
    """The engine under test plus what the test knows: which sources the worker has indexed."""

    def __init__(self, engine: Engine, rng: random.Random, rule: str = "assignee") -> None:
        self.engine, self.rng, self.rule = engine, rng, rule
        self.indexed: set[tuple[str, int]] = set()  # sources that had chunks after the last drain
        self.clean = True  # no write since the last drain
        self._cache: dict[str, list[dict]] = {}  # the tables as read since the last write (a search reads, never writes)
        self.membership_writes = 0
        self.restricted: set[int] = set()  # the tasks this run restricted (the model's own record, never read back)
        self.restricted_writes = 0

    # --- building and draining -------------------------------------------------------------------
    def populate(self, employees: int = 8, projects: int = 3, tasks: int = 40, documents: int = 12) -> None:
        for i in range(employees):
            self.engine.create(EMPLOYEES, {"FIRST_NAME": f"E{i}", "ROLE": self.rng.choice(ROLES)})
        for i in range(projects):
            pid = self.engine.create(PROJECTS, {"NAME": f"Project {i}", "DESCRIPTION": self._text()})["project_id"]
            self.engine.create(SPRINTS, {"PROJECT_ID": pid, "NAME": f"Sprint {i}", "GOAL": self._text()})
        for _ in range(tasks):
            self.add_task()
        for _ in range(documents):
            self.engine.create(DOCUMENTS, {"TITLE": self._text(), "BODY": self._text(),
                                           "OWNER_EMPLOYEE_ID": self._maybe(self._ids(EMPLOYEES)),
                                           "PROJECT_ID": self._maybe(self._ids(PROJECTS)),
                                           "DOC_TYPE": self.rng.choice(DOC_TYPES)})
        self.drain()

    def drain(self) -> None:
        drain(self.engine, count_tokens, 64, 5)
        self._cache.clear()
        self.indexed = {(t, i) for t, ids in self._sources().items() for i in ids}
        self._cache.clear()  # a caller may write outside World after a drain (tests/sources/test_imported_access.py)
        self.clean = True

    # --- one random write (the worker stays stopped) ---------------------------------------------
    def write(self) -> None:
        try:
            self._write_one()
        finally:
            self._cache.clear()  # what was read to choose the write is stale now
        self.clean = False

    def _write_one(self) -> None:
        rng, e = self.rng, self.engine
        if self.rule == "project" and rng.random() < 0.4:
            self.write_membership()
            return
        if self.rule == "project" and rng.random() < 0.35:
            self.write_restricted()
            return
        action = rng.choice(["reassign", "reassign", "move", "reown", "reown", "retype", "retype", "role", "role",
                             "delete_task", "delete_doc", "delete_sprint", "delete_employee", "add_employee",
                             "add_task"])
        tasks, docs, people = self._ids(TASKS), self._ids(DOCUMENTS), self._ids(EMPLOYEES)
        if action == "reassign" and tasks:
            e.update(TASKS, rng.choice(tasks), {"ASSIGNEE_ID": self._maybe(people)})
        elif action == "move" and tasks:
            e.update(TASKS, rng.choice(tasks), {"PROJECT_ID": self._maybe(self._ids(PROJECTS)), "SPRINT_ID": None})
        elif action == "reown" and docs:
            e.update(DOCUMENTS, rng.choice(docs), {"OWNER_EMPLOYEE_ID": self._maybe(people)})
        elif action == "retype" and docs:
            e.update(DOCUMENTS, rng.choice(docs), {"DOC_TYPE": rng.choice(DOC_TYPES)})
        elif action == "role" and people:
            e.update(EMPLOYEES, rng.choice(people), {"ROLE": rng.choice(ROLES)})
        elif action == "delete_task" and tasks:
            e.delete(TASKS, rng.choice(tasks))
        elif action == "delete_doc" and docs:
            e.delete(DOCUMENTS, rng.choice(docs))
        elif action == "delete_sprint" and self._ids(SPRINTS):
            e.delete(SPRINTS, rng.choice(self._ids(SPRINTS)))
        elif action == "delete_employee" and len(people) > 2:
            try:
                e.delete(EMPLOYEES, rng.choice(people))
            except ConflictError:  # owns documents: the delete is refused, nothing changes
                pass
        elif action == "add_employee":
            e.create(EMPLOYEES, {"FIRST_NAME": "New", "ROLE": rng.choice(ROLES)})
        else:
            self.add_task()

    def write_membership(self) -> None:
        """A membership write: a PUT, a DELETE, a sync's replace of one source's set, or a project deleted (its
        memberships go with it) or added."""
        rng, e = self.rng, self.engine
        projects, people = self._ids(PROJECTS), self._ids(EMPLOYEES)
        action = rng.choice(["put", "put", "put", "delete", "delete", "replace", "drop_project", "add_project"])
        self.membership_writes += 1
        if action == "add_project" or not projects:
            e.create(PROJECTS, {"NAME": "New project", "DESCRIPTION": self._text()})
        elif action == "drop_project" and len(projects) > 2:
            e.delete(PROJECTS, rng.choice(projects))
        elif action == "put" and people:
            e.put_project_member(rng.choice(projects), rng.choice(people), rng.choice(MEMBER_SOURCES))
        elif action == "delete" and people:
            e.delete_project_member(rng.choice(projects), rng.choice(people))
        elif people:
            e.replace_project_members(rng.choice(projects), rng.choice(MEMBER_SOURCES),
                                      rng.sample(people, rng.randint(0, min(4, len(people)))))

    def write_restricted(self) -> None:
        """An import's write of TASKS.RESTRICTED (a Jira issue-security level set or removed) on a random task;
        the engine says whether the flag changed, which must agree with the model's record."""
        tasks = self._ids(TASKS)
        if not tasks:
            return
        task_id, flag = self.rng.choice(tasks), self.rng.random() < 0.6
        with self.engine.batch() as tx:
            changed = tx.set_task_restricted(task_id, flag)
        if changed != (flag != (task_id in self.restricted)):
            raise AssertionError(f"set_task_restricted({task_id}, {flag}) said {changed}, the model "
                                 f"{'restricted' if task_id in self.restricted else 'open'}")
        (self.restricted.add if flag else self.restricted.discard)(task_id)
        self.restricted_writes += 1

    def add_task(self) -> None:
        self.engine.create(TASKS, {"TITLE": self._text(), "DESCRIPTION": self._text(),
                                   "ASSIGNEE_ID": self._maybe(self._ids(EMPLOYEES)),
                                   "PROJECT_ID": self._maybe(self._ids(PROJECTS))})

    # --- one random search, checked ----------------------------------------------------------------
    def search_and_check(self, tally: Tally, vectors: np.ndarray, faces: Sequence[Face] = (),
                         typed: bool = True) -> None:
        """One random search, checked; with ``typed`` (project rule) also the typed query and lookups."""
        rng, e = self.rng, self.engine
        people = self._rows(EMPLOYEES)
        person = rng.choice(people)
        caller = (e.caller(person["employee_id"]) if self.rule == "project"
                  else Caller(person["employee_id"], Role(person["role"])))
        projects = self._ids(PROJECTS)
        scope = Scope(project=rng.choice(["all", "all", "none", *[str(p) for p in projects]]),
                      doc_types=rng.choice(DOC_TYPE_SCOPES))
        k, mode = rng.randint(1, 30), rng.choice(["vector", "hybrid", "lexical"] if self.rule == "project"
                                                  else ["vector", "hybrid"])
        allowed = self._visible(caller, scope)
        word = rng.choice(WORDS)
        hits = e.search(vectors[rng.randrange(len(vectors))], word, caller, k, scope, mode).hits
        tally.searches += 1
        tally.searches_with_worker_stopped += not self.clean
        context = (f"employee {caller.employee_id} ({caller.role}) k={k} {mode} scope={scope.project} "
                   f"doc types={scope.doc_types}")
        # A lexical search returns only chunks holding the word: held to no leak (k is a vector guarantee).
        self._check(tally, context, [(h.source_type, h.source_id) for h in hits], allowed,
                    0 if mode == "lexical" else min(k, len(allowed)))
        if self.rule == "project" and typed:
            self._check_tracker_and_lookups(tally, caller, context)
        for face in faces:  # the same question through a face (MCP, the OpenAI-compatible API): same guarantee
            seen = face.ask(caller, word, k, scope, mode)
            tally.face_searches += 1
            # A face that answers in its own scope (a chat) is held to what the caller may see at all.
            self._check(tally, f"{face.name}: {context}", seen.sources,
                        allowed if seen.complete else self._visible(caller, Scope()),
                        min(k, len(allowed)) if seen.complete and mode != "lexical" else 0)

    @staticmethod
    def _check(tally: Tally, context: str, sources: Sequence[tuple[str, int]], allowed: set[tuple[str, int]],
               at_least: int) -> None:
        for source_type, source_id in sources:
            if (source_type, source_id) not in allowed:
                tally.fail("leaks", f"{context}: {source_type} #{source_id}")
        if len(sources) < at_least:
            tally.fail("short", f"{context}: {len(sources)} hits of {at_least} visible")

    def _check_tracker_and_lookups(self, tally: Tally, caller: Caller, context: str) -> None:
        """The typed query's count and group-by over every task (no index involved), and lookups by id of random
        tasks, against the model: each difference is a leak or a loss."""
        from app.rag.understanding.query import TrackerQuery
        from app.services.entities import visible as entities_visible

        mine = [t for t in self._rows(TASKS)
                if self._sees(caller, "task", t.get("assignee_id"), t["project_id"], t["task_id"])]
        counted = self.engine.run_tracker_query(caller, TrackerQuery(returns="count")).total
        grouped = self.engine.run_tracker_query(caller, TrackerQuery(returns="group", group_by="project")).groups
        expected: dict = {}
        for t in mine:
            expected[t["project_id"]] = expected.get(t["project_id"], 0) + 1
        tally.tracker_checks += 1
        if counted != len(mine) or {g.key: g.count for g in grouped} != expected:
            tally.fail("wrong", f"{context}: tracker count {counted} groups {[(g.key, g.count) for g in grouped]}, "
                                f"model {len(mine)} {expected}")
        ids = [t["task_id"] for t in self._rows(TASKS)]
        asked = [("task", i) for i in self.rng.sample(ids, min(5, len(ids)))]
        found = set(entities_visible(self.engine, caller, asked))
        want = {("task", t["task_id"]) for t in mine} & set(asked)
        tally.lookup_checks += 1
        if found != want:
            tally.fail("wrong", f"{context}: lookups {sorted(found)}, model {sorted(want)}")

    def _members(self) -> dict[int, set[int]]:
        """employee id -> the projects PROJECT_MEMBERS says they belong to (read through the engine's list)."""
        if "members" not in self._cache:
            out: dict[int, set[int]] = {}
            for project_id in self._ids(PROJECTS):
                page = self.engine.project_members(project_id, limit=10_000)
                for member in page.items if page is not None else []:
                    out.setdefault(member.employee_id, set()).add(project_id)
            self._cache["members"] = [out]  # type: ignore[list-item]
        return self._cache["members"][0]  # type: ignore[return-value]

    def _sees(self, caller: Caller, source_type: str, owner: int | None, project_id: int | None,
              source_id: int | None = None) -> bool:
        """The model of the rule, from the tables: roles from EMPLOYEES, memberships from PROJECT_MEMBERS; a task
        this run restricted is no member's."""
        role = next((p["role"] for p in self._rows(EMPLOYEES) if p["employee_id"] == caller.employee_id), None)
        if role in ("MANAGER", "ADMIN") or source_type in ("sprint", "project") or owner == caller.employee_id \
                or (source_type == "doc" and owner is None):
            return True
        return (self.rule == "project" and source_type == "task" and project_id is not None
                and source_id not in self.restricted
                and project_id in self._members().get(caller.employee_id, set()))

    def _visible(self, caller: Caller, scope: Scope) -> set[tuple[str, int]]:
        """Ground truth from the source tables now: indexed sources the caller may see, in scope."""
        rows = {"task": self._rows(TASKS), "doc": self._rows(DOCUMENTS), "sprint": self._rows(SPRINTS),
                "project": self._rows(PROJECTS)}
        out = set()
        for source_type, items in rows.items():
            for row in items:
                source_id = row[f"{'document' if source_type == 'doc' else source_type}_id"]
                project_id = source_id if source_type == "project" else row["project_id"]
                owner = row.get("assignee_id") if source_type == "task" else row.get("owner_employee_id")
                if (source_type, source_id) not in self.indexed or not _in_scope(scope, project_id):
                    continue
                if source_type == "doc" and scope.doc_types is not None \
                        and doc_type_key(row["doc_type"]) not in scope.doc_types:
                    continue
                if self._sees(caller, source_type, owner, project_id, source_id):
                    out.add((source_type, source_id))
        return out

    # --- helpers -----------------------------------------------------------------------------------
    def _sources(self) -> dict[str, list[int]]:
        return {"task": self._ids(TASKS), "doc": self._ids(DOCUMENTS), "sprint": self._ids(SPRINTS),
                "project": self._ids(PROJECTS)}

    def _rows(self, entity) -> list[dict]:
        if entity.name not in self._cache:
            self._cache[entity.name] = list(iter_records(self.engine, entity))
        return self._cache[entity.name]

    def _ids(self, entity) -> list[int]:
        return [row[entity.pk.lower()] for row in self._rows(entity)]

    def _maybe(self, ids: list[int]) -> int | None:
        return self.rng.choice(ids) if ids and self.rng.random() < 0.8 else None

    def _text(self) -> str:
        return " ".join(self.rng.choices(WORDS, k=self.rng.randint(2, 6)))


def _in_scope(scope: Scope, project_id: int | None) -> bool:
    if scope.project == "all":
        return True
    if scope.project == "none":
        return project_id is None
    return project_id == int(scope.project)


def run(engine: Engine, cases: int, seed: int, drain_every: float = 0.05, faces: Sequence[Face] = (),
        populate: Callable[[World], None] = World.populate, rule: str = "assignee", burst: int = 1) -> Tally:
    """``cases`` random steps: about 45% searches, 50% writes, ``drain_every`` drains (the worker); each
    search is also asked through every face. ``populate`` builds and indexes the team first (an imported
    tracker: tests/sources/test_imported_access.py). ``rule`` is the engine's RAG_ACCESS_RULE for the run.
    ``burst`` searches (random askers, scopes, k and modes) follow one another on the same state, each a case:
    the fast path of many queries per state, the tables read once for all of them."""
    rng = random.Random(seed)
    engine.access_rule = rule  # type: ignore[attr-defined]
    world = World(engine, rng, rule)
    populate(world)
    vectors = np.asarray([engine.embed_query(w) for w in WORDS], dtype=np.float32)
    tally = Tally()
    while tally.cases < cases:
        roll = rng.random()
        if roll < drain_every:
            world.drain()
            tally.drains += 1
        elif roll < 0.5:
            world.write()
            tally.writes += 1
        else:
            for first in [True] + [False] * (min(burst, cases - tally.cases) - 1):
                world.search_and_check(tally, vectors, faces, typed=first)
                tally.cases += 1
            continue
        tally.cases += 1
    tally.membership_writes = world.membership_writes
    tally.restricted_writes = world.restricted_writes
    return tally


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--rule", choices=("assignee", "project"), default="assignee")
    parser.add_argument("--burst", type=int, default=1, help="searches per state (each a case)")
    parser.add_argument("--drain-every", type=float, default=0.05, help="share of steps that drain the queue")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "bench" / "bench_access.json")
    args = parser.parse_args()

    from app.config import Settings
    from app.engines.sqlite.engine import SQLiteEngine
    from benchmarks_md import append_rows, save_result

    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        engine = SQLiteEngine.open(Settings(database_url=f"sqlite:///{tmp}/access.db"))
        try:
            engine.migrate()
            tally = run(engine, args.cases, args.seed, args.drain_every, rule=args.rule, burst=args.burst)
        finally:
            engine.close()
    result = {"date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"), "seed": args.seed,
              "rule": args.rule,
              "seconds": round(time.perf_counter() - started, 1), **vars(tally)}
    save_result(args.out, result)
    print(json.dumps(result, indent=2))
    append_rows([
        f"| {dt.date.today()} | randomized access (SQLite, rule {args.rule}, seed {args.seed}) | {tally.cases} cases | "
        f"searches (worker stopped) / writes / drains | {tally.searches} ({tally.searches_with_worker_stopped}) / "
        f"{tally.writes} / {tally.drains} | leaks / short results / wrong counts | {tally.leaks} / {tally.short} / "
        f"{tally.wrong} |",
    ])
    sys.exit(1 if tally.leaks or tally.short or tally.wrong else 0)


if __name__ == "__main__":
    main()
