"""Search on real chunk tables: access rule and scope before the top-k, exactness, freshness."""

from __future__ import annotations

import apsw
import numpy as np
import pytest

from app.domain import Caller, Role, Scope
from app.rag.access import is_visible
from app.rag.fusion import RRF_K

from .helpers import DIM, seed_chunks, unit_vectors

MANAGER = Caller(900, Role.MANAGER)
DEV = Caller(1, Role.DEVELOPER)
TYPES = ("task", "sprint", "project", "doc")


@pytest.fixture
def corpus(sqlite_engine):
    """400 chunks over 3 owners (plus none), 3 projects (plus none), 4 sprints (plus none) and 2 doc types
    (plus none)."""
    rng = np.random.default_rng(7)
    specs = []
    for i in range(400):
        st = TYPES[i % 4]
        owner = [None, 1, 2, 3][rng.integers(4)] if st in ("task", "doc") else None
        project = [None, 10, 11, 12][rng.integers(4)]
        sprint = [None, 20, 21, 22, 23][rng.integers(5)] if st in ("task", "sprint") else None
        doc_type = [None, "WIKI", "MEETING_NOTES"][rng.integers(3)] if st == "doc" else None
        specs.append((st, 1000 + i, owner, project, sprint, doc_type))
    vectors = unit_vectors(rng, len(specs))
    seed_chunks(sqlite_engine, specs, vectors)
    return specs, vectors, rng


def expected(specs, vectors, query, caller, scope, k):
    rows = []
    for (st, sid, owner, project, sprint, doc_type), vec in zip(specs, vectors):
        if not is_visible(caller, st, owner):
            continue
        if scope.project == "none" and project is not None or isinstance(scope.project, int) and project != scope.project:
            continue
        if scope.sprint_id is not None and sprint != scope.sprint_id:
            continue
        if scope.source_types is not None and st not in scope.source_types:
            continue
        if scope.doc_types is not None and st == "doc" and doc_type not in scope.doc_types:
            continue
        rows.append((float(1 - vec @ query), st, sid))
    return [(st, sid) for _, st, sid in sorted(rows)[:k]]


SCOPES = [Scope(), Scope(project=11), Scope(project="none"), Scope(sprint_id=21),
          Scope(source_types=("task", "doc")), Scope(project=10, sprint_id=20, source_types=("task",)),
          Scope(doc_types=("WIKI",)), Scope(source_types=("doc",), doc_types=("MEETING_NOTES", "WIKI")),
          Scope(project=11, source_types=("task", "doc"), doc_types=("MEETING_NOTES",)),
          Scope(source_types=("doc",), doc_types=("NO_SUCH_TYPE",))]


@pytest.mark.parametrize("caller", [MANAGER, DEV, Caller(3, Role.DEVELOPER), Caller(99, Role.ADMIN)])
@pytest.mark.parametrize("scope", SCOPES)
def test_vector_search_is_the_exact_filtered_top_k(sqlite_engine, corpus, caller, scope):
    specs, vectors, rng = corpus
    query = unit_vectors(rng, 1)[0]
    result = sqlite_engine.search(query, "", caller, 10, scope, "vector")
    assert result.answered_by == "memory" and result.mode == "vector"
    want = expected(specs, vectors, query, caller, scope, 10)
    assert [(h.source_type, h.source_id) for h in result.hits] == want
    for h in result.hits:
        assert h.score == pytest.approx(1 - h.distance)
        vec = vectors[h.source_id - 1000]
        assert h.distance == pytest.approx(1 - float(vec @ query), abs=1e-5)


def test_developer_never_sees_other_peoples_tasks_or_unassigned_ones(sqlite_engine, corpus):
    specs, _, rng = corpus
    owners = {(st, sid): owner for st, sid, owner, *_ in specs}
    for _ in range(5):
        hits = sqlite_engine.search(unit_vectors(rng, 1)[0], "chunk", DEV, 50, Scope(), "hybrid").hits
        assert len(hits) == 50
        for h in hits:
            owner = owners[(h.source_type, h.source_id)]
            assert is_visible(DEV, h.source_type, owner)


def test_ties_are_broken_by_chunk_id(sqlite_engine):
    v = unit_vectors(np.random.default_rng(1), 1)
    seed_chunks(sqlite_engine, [("sprint", i, None, None, None) for i in (5, 3, 4, 1, 2)], np.repeat(v, 5, axis=0))
    hits = sqlite_engine.search(v[0], "", MANAGER, 3, Scope(), "vector").hits
    assert [h.source_id for h in hits] == [5, 3, 4]  # inserted in that order: chunk ids 1, 2, 3


def test_hybrid_returns_k_when_k_are_visible_and_all_when_fewer(sqlite_engine):
    rng = np.random.default_rng(3)
    # Many lexical matches the developer may not see, only 6 chunks the developer may see.
    hidden = [("task", i, 2, None, None) for i in range(1, 200)]
    visible = [("task", 500 + i, 1, None, None) for i in range(3)] + [("sprint", 600 + i, None, None, None) for i in range(3)]
    specs = hidden + visible
    contents = ["deploy pipeline failed again" if st == "task" and sid < 200 else f"unrelated text {sid}"
                for st, sid, *_ in specs]
    seed_chunks(sqlite_engine, specs, unit_vectors(rng, len(specs)), contents)
    q = unit_vectors(rng, 1)[0]
    hits = sqlite_engine.search(q, "deploy pipeline", DEV, 5, Scope(), "hybrid").hits
    assert len(hits) == 5 and all(h.source_id >= 500 for h in hits)
    assert len(sqlite_engine.search(q, "deploy pipeline", DEV, 10, Scope(), "hybrid").hits) == 6
    assert len(sqlite_engine.search(q, "deploy", MANAGER, 100, Scope(), "hybrid").hits) == 100


def test_hybrid_lexical_arm_finds_exact_words_and_reports_true_distances(sqlite_engine):
    rng = np.random.default_rng(4)
    specs = [("doc", i, None, None, None) for i in range(1, 301)]
    contents = [f"documento {i}" for i in range(1, 300)] + ["Configuración del clúster kubernetes"]
    vectors = unit_vectors(rng, len(specs))
    seed_chunks(sqlite_engine, specs, vectors, contents)
    q = unit_vectors(rng, 1)[0]
    hits = sqlite_engine.search(q, "configuracion cluster", MANAGER, 3, Scope(), "hybrid").hits  # no accents typed
    found = [h for h in hits if h.source_id == 300]  # lexical rank 1 ties vector rank 1 in RRF
    assert found and found[0].distance == pytest.approx(1 - float(vectors[299] @ q), abs=1e-5)
    assert found[0].score == pytest.approx(1 / (RRF_K + 1))


def test_hybrid_scopes_doc_types_in_both_arms(sqlite_engine):
    """The lexical arm filters on DOC_TYPE in SQL as the vector arm does in memory: a matching word in a
    document of another type, or in the wrong source type, never comes back."""
    rng = np.random.default_rng(5)
    specs = [("doc", 1, None, None, None, "WIKI"), ("doc", 2, None, None, None, "MEETING_NOTES"),
             ("doc", 3, None, None, None, None), ("task", 4, 1, None, None), ("sprint", 5, None, None, None)]
    seed_chunks(sqlite_engine, specs, unit_vectors(rng, len(specs)), ["rollout checklist"] * len(specs))
    q = unit_vectors(rng, 1)[0]

    def found(scope, caller=MANAGER):
        return {(h.source_type, h.source_id) for h in sqlite_engine.search(q, "rollout", caller, 10, scope, "hybrid").hits}

    assert found(Scope(doc_types=("WIKI",))) == {("doc", 1), ("task", 4), ("sprint", 5)}
    assert found(Scope(source_types=("task", "doc"), doc_types=("MEETING_NOTES", "WIKI"))) == {
        ("doc", 1), ("doc", 2), ("task", 4)}
    assert found(Scope(source_types=("doc",), doc_types=("NO_SUCH_TYPE",))) == set()
    assert found(Scope(doc_types=("WIKI",)), Caller(2, Role.DEVELOPER)) == {("doc", 1), ("sprint", 5)}


@pytest.mark.parametrize("text", ['"', "AND OR NOT", "NEAR(a b)", "col:val*", "^x - (y", "", "¿qué? ¡sí!"])
def test_fts_syntax_in_user_text_never_errors(sqlite_engine, corpus, text):
    _, _, rng = corpus
    assert len(sqlite_engine.search(unit_vectors(rng, 1)[0], text, MANAGER, 4, Scope(), "hybrid").hits) == 4


def test_vec0_rejects_wrong_dimension_vectors(sqlite_engine):
    conn = sqlite_engine.conn
    with pytest.raises(apsw.SQLError, match="Dimension mismatch"):
        conn.execute("INSERT INTO RAG_VEC (CHUNK_ID, EMBEDDING, AUDIENCE, SOURCE_TYPE) VALUES (1, ?, 0, 'doc')",
                     (np.ones(DIM - 1, np.float32).tobytes(),))
    with pytest.raises(apsw.SQLError):  # and the chunk row of a failed upsert is rolled back with it
        seed_chunks(sqlite_engine, [("doc", 1, None, None, None)], np.ones((1, 16), np.float32))
    assert conn.execute("SELECT COUNT(*) FROM RAG_CHUNK").fetchone()[0] == 0


def test_index_sees_writes_of_another_process(sqlite_engine, other_engine):
    rng = np.random.default_rng(5)
    q = unit_vectors(rng, 1)[0]
    assert sqlite_engine.search(q, "", MANAGER, 5, Scope(), "vector").hits == []
    seed_chunks(other_engine, [("sprint", i, None, None, None) for i in range(1, 4)], unit_vectors(rng, 3))
    assert {h.source_id for h in sqlite_engine.search(q, "", MANAGER, 5, Scope(), "vector").hits} == {1, 2, 3}

    # Re-embedding chunk 2 with the query itself moves it to the top; deleting 3 removes it.
    seed_chunks(other_engine, [("sprint", 2, None, None, None)], q[None, :])
    other_engine.conn.execute("DELETE FROM RAG_CHUNK WHERE SOURCE_ID = 3")
    hits = sqlite_engine.search(q, "", MANAGER, 5, Scope(), "vector").hits
    assert [h.source_id for h in hits][:1] == [2] and hits[0].distance == pytest.approx(0, abs=1e-5)
    assert {h.source_id for h in hits} == {1, 2}
    assert other_engine.conn.execute("SELECT COUNT(*) FROM RAG_VEC").fetchone()[0] == 2  # vector went with it

    # A chunk that changes audience moves partition.
    seed_chunks(other_engine, [("task", 9, 1, None, None)], q[None, :])
    tasks = Scope(source_types=("task",))
    assert [h.source_id for h in sqlite_engine.search(q, "", DEV, 5, tasks, "vector").hits] == [9]
    seed_chunks(other_engine, [("task", 9, 2, None, None)], q[None, :])
    assert sqlite_engine.search(q, "", DEV, 5, tasks, "vector").hits == []

    other_engine.wipe()
    assert sqlite_engine.search(q, "", MANAGER, 5, Scope(), "vector").hits == []


def test_incremental_refresh_matches_a_full_reload_after_many_changes(sqlite_engine, other_engine):
    rng = np.random.default_rng(6)
    q = unit_vectors(rng, 1)[0]
    sqlite_engine.search(q, "", MANAGER, 1, Scope(), "vector")
    for round_ in range(6):  # appends, updates and deletes: exercises tombstones and compaction
        specs = [("task", int(i), int(rng.integers(1, 4)), None, None) for i in rng.choice(300, 120, replace=False)]
        seed_chunks(other_engine, specs, unit_vectors(rng, len(specs)))
        other_engine.conn.execute("DELETE FROM RAG_CHUNK WHERE SOURCE_ID % 7 = ?", (round_,))
        incremental = sqlite_engine.search(q, "", DEV, 20, Scope(), "vector").hits
        fresh = other_engine.search(q, "", DEV, 20, Scope(), "vector").hits
        other_engine._index = None  # next search reloads from scratch
        assert [(h.source_id, round(h.distance, 5)) for h in incremental] == \
               [(h.source_id, round(h.distance, 5)) for h in fresh]


def test_a_searching_process_runs_blas_on_one_thread(sqlite_engine):
    """A search is many small BLAS products (one per audience): BLAS threads beside the server's only
    stall a loaded machine (the figures are in app/engines/sqlite/vector_index.py)."""
    from threadpoolctl import threadpool_info

    seed_chunks(sqlite_engine, [("doc", 1, None, None, None, None)], unit_vectors(np.random.default_rng(3), 1),
                ["one chunk"])
    sqlite_engine.search(unit_vectors(np.random.default_rng(4), 1)[0], "chunk", Caller(9, Role.MANAGER), 1, Scope(),
                         "vector")
    blas = [pool for pool in threadpool_info() if pool["user_api"] == "blas"]
    assert blas and all(pool["num_threads"] == 1 for pool in blas)
