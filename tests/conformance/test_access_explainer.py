"""The console's access explainer agrees with the query, on random data and both engines.

A random team (scripts/bench_access.World) takes random writes, some drained and some not (access moves in
the writer's transaction, text waits for the worker). After each step a random employee asks a random
question in a random mode and scope, and the explainer's verdicts are checked against what the engine's
search returns for that employee: every hit they get is explained as visible, every withheld hit is one
they can never get, and over the whole index (k above the chunk count) the hits the explainer calls
visible are exactly the employee's results.
"""

from __future__ import annotations

import random

from app.domain import Caller, Role, Scope
from app.entities import DOCUMENTS, EMPLOYEES, PROJECTS, SPRINTS, TASKS
from app.services.access_explainer import explain_entity, explain_search
from app.services.records import iter_records
from app.services.search import resolve_caller
from scripts.bench_access import WORDS, World
from tests.support import employee

K_ALL = 1000  # above the chunk count of the random world: a search returns everything it may
MODES = ("vector", "hybrid", "lexical")


def keys(hits):
    """Chunk keys."""
    return {(h.source_type, h.source_id, h.chunk_ix) for h in hits}


def random_world(engine, seed: int) -> tuple[World, random.Random]:
    rng = random.Random(seed)
    world = World(engine, rng)
    world.populate(employees=6, projects=3, tasks=30, documents=10)
    return world, rng


def random_question(world: World, rng: random.Random) -> tuple[Caller, str, Scope]:
    people = world._rows(EMPLOYEES)
    caller = resolve_caller(world.engine, rng.choice(people)["employee_id"])  # the role from EMPLOYEES
    projects = world._ids(PROJECTS)
    scope = Scope(project=rng.choice(["all", "all", "none", *projects]))
    return caller, " ".join(rng.sample(WORDS, rng.randint(1, 3))), scope


def test_explainer_verdicts_agree_with_what_search_returns(engine):
    world, rng = random_world(engine, seed=18)
    checked = withheld_seen = entities_checked = 0
    for step in range(24):
        if step % 3 == 0:
            world.write()  # not drained: only the access of the changed rows has moved
        if step % 8 == 7:
            world.drain()
        caller, question, scope = random_question(world, rng)
        mode = rng.choice(MODES)
        vector = engine.embed_query(question)
        everything = keys(engine.search(vector, question, caller, K_ALL, scope, mode).hits)
        # Over the whole index: the explainer's visible hits are exactly the employee's results.
        whole = explain_search(engine, caller, question, K_ALL, scope, mode)
        assert all(e.verdict.visible for e in whole.visible), [e.verdict for e in whole.visible]
        assert keys(e.hit for e in whole.visible) == everything
        assert not keys(e.hit for e in whole.withheld) & everything
        unrestricted = engine.search(vector, question, Caller(caller.employee_id, Role.ADMIN), K_ALL, scope, mode)
        assert keys(e.hit for e in whole.withheld) == keys(unrestricted.hits) - everything
        assert len(whole.withheld) + len(everything) == whole.considered
        # At a small k: what is shown is what search returns, and nothing withheld is ever theirs.
        k = rng.randint(1, 8)
        small = explain_search(engine, caller, question, k, scope, mode)
        assert [(e.hit.source_type, e.hit.source_id, e.hit.chunk_ix) for e in small.visible] == [
            (h.source_type, h.source_id, h.chunk_ix) for h in engine.search(vector, question, caller, k, scope, mode).hits]
        assert all(e.verdict.visible for e in small.visible)
        assert all(not e.verdict.visible for e in small.withheld) and not keys(e.hit for e in small.withheld) & everything
        withheld_seen += len(small.withheld)
        # One entity at a time: indexed entities are visible exactly when the employee's search finds them.
        if scope == Scope() and mode != "lexical":
            indexed = {(t, i) for t, i, _ in keys(unrestricted.hits)}
            found = {(t, i) for t, i, _ in everything}
            for source_type, entity in (("task", TASKS), ("doc", DOCUMENTS), ("sprint", SPRINTS),
                                        ("project", PROJECTS)):
                for row in iter_records(engine, entity):
                    source_id = row[entity.pk.lower()]
                    if (source_type, source_id) in indexed:
                        verdict = explain_entity(engine, caller, source_type, source_id).verdict
                        assert verdict.visible == ((source_type, source_id) in found), (source_type, verdict)
                        entities_checked += 1
        checked += 1
    assert checked == 24 and withheld_seen > 0 and entities_checked > 50  # the checks really ran


def test_an_entity_that_does_not_exist_has_no_verdict(engine):
    caller = resolve_caller(engine, employee(engine, "Ana", "Ruiz"))
    missing = explain_entity(engine, caller, "task", 10**12)
    assert missing.exists is False and missing.verdict is None and missing.caller_name == "Ana Ruiz"
