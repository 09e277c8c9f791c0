"""Property: over random teams, callers and scopes, search == exact brute force over the visible set.

The reference rebuilds every chunk from the generated data with the same templates and chunker,
embeds it with the same model, applies the access rule and scope in Python, and takes the exact
top-k. The engine must return the same chunks in the same order (up to distance ties).
"""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.domain import Scope
from app.records_model import CommentSource, DocSource, ProjectSource, SprintSource, TaskSource
from app.embedding.tokens import count_tokens
from app.entities import COMMENTS
from app.rag.access import is_visible
from app.rag.chunking import chunk_record
from app.rag.scope import parse_doc_types
from tests.support import comment, document, drain_all, employee, project, sprint, task

DOC_TYPES = [None, "WIKI", "MEETING_NOTES", "adr"]  # stored as typed; chunks and scopes use the normal form
WORDS = ["login", "invoice", "deploy", "database", "retro", "sprint", "bug", "cache", "api",
         "factura", "despliegue", "error", "timeout", "migration", "review", "release"]
text = st.lists(st.sampled_from(WORDS), min_size=1, max_size=6).map(" ".join)


@st.composite
def teams(draw):
    n_dev = draw(st.integers(1, 3))
    n_proj = draw(st.integers(1, 2))
    sprints = draw(st.lists(st.integers(0, n_proj - 1), min_size=0, max_size=3))
    tasks = draw(st.lists(st.tuples(text, st.one_of(st.none(), st.integers(0, n_dev - 1)),
                                    st.one_of(st.none(), st.integers(0, n_proj - 1)),
                                    st.one_of(st.none(), st.integers(0, max(0, len(sprints) - 1))),
                                    st.lists(text, max_size=2)), min_size=1, max_size=10))
    docs = draw(st.lists(st.tuples(text, st.one_of(st.none(), st.integers(0, n_dev - 1)),
                                   st.one_of(st.none(), st.integers(0, n_proj - 1)),
                                   st.sampled_from(DOC_TYPES)), max_size=4))
    return n_dev, n_proj, sprints, tasks, docs


scopes = st.fixed_dictionaries({
    "project": st.sampled_from(["all", "none", 0, 1]),
    "sprint": st.one_of(st.none(), st.integers(0, 2)),
    "types": st.one_of(st.none(), st.lists(st.sampled_from(["task", "sprint", "project", "doc"]),
                                           min_size=1, max_size=3, unique=True)),
    "doc_types": st.one_of(st.none(), st.lists(st.sampled_from(["WIKI", "meeting_notes", "ADR", "OTHER"]),
                                               min_size=1, max_size=2, unique=True)),
})


def build(engine, team):
    """Write the team through the engine; return the source records the reference chunks from."""
    n_dev, n_proj, sprint_projects, tasks, docs = team
    manager = employee(engine, "Mia", "Boss", role="MANAGER")
    devs = [employee(engine, f"Dev{i}", "Coder") for i in range(n_dev)]
    names = {}
    projects = [project(engine, f"Project {i}", f"about {WORDS[i]}") for i in range(n_proj)]
    records = [ProjectSource(p, f"Project {i}", "ACTIVE", f"about {WORDS[i]}", None, None)
               for i, p in enumerate(projects)]
    sprint_ids = []
    for i, pi in enumerate(sprint_projects):
        sid = sprint(engine, projects[pi], f"Sprint {i}", "ship it")
        sprint_ids.append(sid)
        names[sid] = (f"Sprint {i}", projects[pi])
        records.append(SprintSource(sid, f"Sprint {i}", "ACTIVE", projects[pi], f"Project {pi}", "ship it", None, None))
    for title, dev, proj, spr, comments in tasks:
        assignee = devs[dev] if dev is not None else None
        sprint_id = sprint_ids[spr] if spr is not None and sprint_ids else None
        project_id = projects[proj] if proj is not None else None
        tid = task(engine, title, f"{title} details", assignee_id=assignee, project_id=project_id, sprint_id=sprint_id)
        written = []  # a comment's chunk line shows the date the database gave it
        for body in comments:
            stamp = engine.get(COMMENTS, comment(engine, tid, body))["created_at"]
            written.append(CommentSource(body, None, None, dt.datetime.fromisoformat(stamp)))
        records.append(TaskSource(
            tid, title, "TODO", "MEDIUM", sprint_id, names[sprint_id][0] if sprint_id else None,
            project_id, f"Project {projects.index(project_id)}" if project_id else None, assignee,
            f"Dev{dev}" if assignee else None, "Coder" if assignee else None, None, None, None,
            f"{title} details", tuple(written)))
    for title, owner, proj, doc_type in docs:
        owner_id = devs[owner] if owner is not None else None
        project_id = projects[proj] if proj is not None else None
        did = document(engine, title, f"{title} body", owner_id=owner_id, project_id=project_id, doc_type=doc_type)
        records.append(DocSource(did, title, f"{title} body", project_id, owner_id, doc_type))
    drain_all(engine)
    return manager, devs, projects, sprint_ids, records


def in_scope(chunk, scope):
    if scope.project == "none" and chunk.project_id is not None:
        return False
    if isinstance(scope.project, int) and chunk.project_id != scope.project:
        return False
    if scope.sprint_id is not None and chunk.sprint_id != scope.sprint_id:
        return False
    if scope.doc_types is not None and chunk.source_type == "doc" and chunk.doc_type not in scope.doc_types:
        return False  # a doc-type scope narrows documents only
    return scope.source_types is None or chunk.source_type in scope.source_types


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                   HealthCheck.too_slow])
@given(team=teams(), scope_spec=scopes, question=text, k=st.integers(1, 12), who=st.integers(-1, 2))
def test_search_equals_brute_force_over_the_visible_set(sqlite_engine, embedder, team, scope_spec, question, k, who):
    engine = sqlite_engine
    engine.wipe()
    manager, devs, projects, sprint_ids, records = build(engine, team)
    caller_id = manager if who < 0 or who >= len(devs) else devs[who]
    caller = engine.caller(caller_id)
    project_choice = scope_spec["project"]
    scope = Scope(
        project=projects[project_choice] if isinstance(project_choice, int) and project_choice < len(projects)
        else ("all" if isinstance(project_choice, int) else project_choice),
        sprint_id=sprint_ids[scope_spec["sprint"]] if scope_spec["sprint"] is not None
        and scope_spec["sprint"] < len(sprint_ids) else None,
        source_types=tuple(t for t in ("task", "sprint", "project", "doc") if t in (scope_spec["types"] or []))
        or None,
        doc_types=parse_doc_types(scope_spec["doc_types"]),
    )

    chunks = [c for r in records for c in chunk_record(r, count_tokens)]
    visible = [c for c in chunks if is_visible(caller, c.source_type, c.owner_employee_id) and in_scope(c, scope)]
    query = engine.embed_query(question)
    ranked = []  # every visible chunk with its exact distance, best first
    if visible:
        matrix = embedder.embed([c.content for c in visible])
        distances = 1.0 - matrix @ query
        ranked = [((visible[i].source_type, visible[i].source_id, visible[i].chunk_ix), float(distances[i]))
                  for i in np.argsort(distances, kind="stable")]

    hits = engine.search(query, question, caller, k, scope, "vector").hits
    assert len(hits) == min(k, len(visible))  # no result loss
    owners = {(c.source_type, c.source_id, c.chunk_ix): c.owner_employee_id for c in chunks}
    tol = 1e-4
    for hit, (expected_key, expected_distance) in zip(hits, ranked):
        key = (hit.source_type, hit.source_id, hit.chunk_ix)
        assert is_visible(caller, hit.source_type, owners[key])  # nothing invisible
        assert key in {c for c, _ in ranked}  # nothing out of scope
        assert hit.distance == pytest.approx(expected_distance, abs=tol)  # same distance at every rank
        if key != expected_key:  # only a distance tie may swap places
            assert key in {c for c, d in ranked if abs(d - expected_distance) <= tol}
