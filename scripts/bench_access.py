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
must be 0 whether or not the worker has run since the change. The suite runs a few hundred cases
(tests/conformance/test_access_randomized.py, both engines); this script runs many more on SQLite,
writes docs/bench/bench_access.json and appends a row to docs/BENCHMARKS.md.

Usage: .venv/bin/python scripts/bench_access.py [--cases 10000] [--seed 7]
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

from app.domain import Caller, Role, Scope  # noqa: E402
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
    leaks: int = 0
    short: int = 0
    failures: list[str] = field(default_factory=list)

    def fail(self, kind: str, detail: str) -> None:
        setattr(self, kind, getattr(self, kind) + 1)
        if len(self.failures) < 20:
            self.failures.append(f"{kind}: {detail}")


class World:
    """The engine under test plus what the test knows: which sources the worker has indexed."""

    def __init__(self, engine: Engine, rng: random.Random) -> None:
        self.engine, self.rng = engine, rng
        self.indexed: set[tuple[str, int]] = set()  # sources that had chunks after the last drain
        self.clean = True  # no write since the last drain

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
        self.indexed = {(t, i) for t, ids in self._sources().items() for i in ids}
        self.clean = True

    # --- one random write (the worker stays stopped) ---------------------------------------------
    def write(self) -> None:
        rng, e = self.rng, self.engine
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
        self.clean = False

    def add_task(self) -> None:
        self.engine.create(TASKS, {"TITLE": self._text(), "DESCRIPTION": self._text(),
                                   "ASSIGNEE_ID": self._maybe(self._ids(EMPLOYEES)),
                                   "PROJECT_ID": self._maybe(self._ids(PROJECTS))})

    # --- one random search, checked ----------------------------------------------------------------
    def search_and_check(self, tally: Tally, vectors: np.ndarray, faces: Sequence[Face] = ()) -> None:
        rng, e = self.rng, self.engine
        people = self._rows(EMPLOYEES)
        person = rng.choice(people)
        caller = Caller(person["employee_id"], Role(person["role"]))
        projects = self._ids(PROJECTS)
        scope = Scope(project=rng.choice(["all", "all", "none", *[str(p) for p in projects]]),
                      doc_types=rng.choice(DOC_TYPE_SCOPES))
        k, mode = rng.randint(1, 30), rng.choice(["vector", "hybrid"])
        allowed = self._visible(caller, scope)
        word = rng.choice(WORDS)
        hits = e.search(vectors[rng.randrange(len(vectors))], word, caller, k, scope, mode).hits
        tally.searches += 1
        tally.searches_with_worker_stopped += not self.clean
        context = (f"employee {caller.employee_id} ({caller.role}) k={k} {mode} scope={scope.project} "
                   f"doc types={scope.doc_types}")
        self._check(tally, context, [(h.source_type, h.source_id) for h in hits], allowed, min(k, len(allowed)))
        for face in faces:  # the same question through a face (MCP, the OpenAI-compatible API): same guarantee
            seen = face.ask(caller, word, k, scope, mode)
            tally.face_searches += 1
            # A face that answers in its own scope (a chat) is held to what the caller may see at all.
            self._check(tally, f"{face.name}: {context}", seen.sources,
                        allowed if seen.complete else self._visible(caller, Scope()),
                        min(k, len(allowed)) if seen.complete else 0)

    @staticmethod
    def _check(tally: Tally, context: str, sources: Sequence[tuple[str, int]], allowed: set[tuple[str, int]],
               at_least: int) -> None:
        for source_type, source_id in sources:
            if (source_type, source_id) not in allowed:
                tally.fail("leaks", f"{context}: {source_type} #{source_id}")
        if len(sources) < at_least:
            tally.fail("short", f"{context}: {len(sources)} hits of {at_least} visible")

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
                if caller.sees_everything or source_type in ("sprint", "project") \
                        or owner == caller.employee_id or (source_type == "doc" and owner is None):
                    out.add((source_type, source_id))
        return out

    # --- helpers -----------------------------------------------------------------------------------
    def _sources(self) -> dict[str, list[int]]:
        return {"task": self._ids(TASKS), "doc": self._ids(DOCUMENTS), "sprint": self._ids(SPRINTS),
                "project": self._ids(PROJECTS)}

    def _rows(self, entity) -> list[dict]:
        return list(iter_records(self.engine, entity))

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
        populate: Callable[[World], None] = World.populate) -> Tally:
    """``cases`` random steps: about 45% searches, 50% writes, ``drain_every`` drains (the worker); each
    search is also asked through every face. ``populate`` builds and indexes the team first (an imported
    tracker: tests/sources/test_imported_access.py)."""
    rng = random.Random(seed)
    world = World(engine, rng)
    populate(world)
    vectors = np.asarray([engine.embed_query(w) for w in WORDS], dtype=np.float32)
    tally = Tally()
    for _ in range(cases):
        roll = rng.random()
        if roll < drain_every:
            world.drain()
            tally.drains += 1
        elif roll < 0.5:
            world.write()
            tally.writes += 1
        else:
            world.search_and_check(tally, vectors, faces)
        tally.cases += 1
    return tally


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=7)
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
            tally = run(engine, args.cases, args.seed)
        finally:
            engine.close()
    result = {"date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"), "seed": args.seed,
              "seconds": round(time.perf_counter() - started, 1), **vars(tally)}
    save_result(args.out, result)
    print(json.dumps(result, indent=2))
    append_rows([
        f"| {dt.date.today()} | randomized access (SQLite, seed {args.seed}) | {tally.cases} cases | "
        f"searches (worker stopped) / writes / drains | {tally.searches} ({tally.searches_with_worker_stopped}) / "
        f"{tally.writes} / {tally.drains} | leaks / short results | {tally.leaks} / {tally.short} |",
    ])
    sys.exit(1 if tally.leaks or tally.short else 0)


if __name__ == "__main__":
    main()
