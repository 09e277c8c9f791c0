"""The in-memory BM25 index answers exactly what FTS5 answers over the caller's visible chunks alone: the
same top-50 chunks in the same order with the same bm25() (1e-9 relative), for a manager (every chunk:
RAG_FTS itself) and for developers (an FTS5 table over a view of only their chunks, so statistics never
count what they cannot see), under every scope, with and without porter, before and after inserts,
updates, access changes, deletes, compaction and a wipe."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

from app.domain import Caller, Role, Scope
from app.engines.sqlite import lexical_index, statements as sql
from app.engines.sqlite.lexical_index import LexicalIndex
from app.engines.sqlite.statements import marks
from app.rag.access import visible_audiences
from app.rag.fts_tokens import tokenize

from .fts_corpus import demo_texts, random_texts
from .helpers import seed_chunks, unit_vectors

TWIN_FTS = {False: "LEX_UNICODE61_FTS", True: "LEX_PORTER_FTS"}
CALLERS = [Caller(900, Role.MANAGER), Caller(1, Role.DEVELOPER), Caller(3, Role.DEVELOPER)]
SCOPES = [Scope(), Scope(project=10), Scope(project="none"), Scope(sprint_id=20),
          Scope(source_types=("task", "doc")), Scope(doc_types=("WIKI",)),
          Scope(project=11, source_types=("doc",), doc_types=("MEETING_NOTES", "NO_SUCH_TYPE"))]
TYPES = ("task", "sprint", "project", "doc")


def seed(engine, texts, first_id, seed_value):
    rng = np.random.default_rng(seed_value)
    specs = []
    for i in range(len(texts)):
        st = TYPES[i % 4]
        owner = [None, 1, 2, 3][rng.integers(4)] if st in ("task", "doc") else None
        project = [None, 10, 11][rng.integers(3)]
        sprint = [None, 20, 21][rng.integers(3)] if st in ("task", "sprint") else None
        doc_type = [None, "WIKI", "MEETING_NOTES"][rng.integers(3)] if st == "doc" else None
        specs.append((st, first_id + i, owner, project, sprint, doc_type))
    seed_chunks(engine, specs, unit_vectors(rng, len(specs)), texts)


@pytest.fixture
def chunks(sqlite_engine):
    texts = demo_texts() + random_texts(300)
    # A word in two thirds of the chunks: its FTS5 idf is negative and clamped to 1e-6.
    seed(sqlite_engine, [t + (" kubernetes" if i % 3 else "") for i, t in enumerate(texts)], 1, 3)
    return sqlite_engine


def scope_filter(audiences: Sequence[int] | None, scope: Scope, alias: str = "c") -> tuple[list[str], list[Any]]:
    """The access rule and the scope as SQL over RAG_CHUNK (ANDed fragments, binds): the reference the
    in-memory index is compared with, as the FTS5 query used to apply them."""
    where: list[str] = []
    binds: list[Any] = []
    if audiences is not None:
        where.append(f"{alias}.AUDIENCE IN ({marks(audiences)})")
        binds.extend(audiences)
    if scope.project == "none":
        where.append(f"{alias}.PROJECT_ID IS NULL")
    elif scope.project != "all":
        where.append(f"{alias}.PROJECT_ID = ?")
        binds.append(int(scope.project))
    if scope.sprint_id is not None:
        where.append(f"{alias}.SPRINT_ID = ?")
        binds.append(int(scope.sprint_id))
    if scope.source_types is not None:
        where.append(f"{alias}.SOURCE_TYPE IN ({marks(scope.source_types)})")
        binds.extend(scope.source_types)
    if scope.doc_types is not None:  # narrows document chunks only
        where.append(f"({alias}.SOURCE_TYPE <> 'doc' OR {alias}.DOC_TYPE IN ({marks(scope.doc_types)}))")
        binds.extend(scope.doc_types)
    return where, binds


def fts5_top(conn, table, words, audiences, scope, porter, limit=50):
    where, binds = scope_filter(audiences, scope)
    match = " OR ".join('"' + w.replace('"', '""') + '"' for w in words)
    statement = (f"SELECT c.CHUNK_ID, bm25({table}) FROM {table} JOIN RAG_CHUNK c ON c.CHUNK_ID = {table}.rowid "
                 f"WHERE {table} MATCH ? {''.join(' AND ' + w for w in where)} ORDER BY bm25({table}), c.CHUNK_ID LIMIT ?")
    return conn.execute(statement, (match, *binds, limit)).fetchall()


def queries(conn, n, seed_value=5, clamped=True):
    """Unstemmed tokens: common and rare words, repeats, Unicode, and a word no chunk has."""
    counts: dict[str, int] = {}
    contents = [row[0] for row in conn.execute("SELECT CONTENT FROM RAG_CHUNK")]
    for content in contents:
        for t in set(tokenize(content, False)):
            counts[t] = counts.get(t, 0) + 1
    ranked = sorted(counts, key=lambda t: (-counts[t], t))
    assert not clamped or counts[ranked[0]] * 2 > len(contents)  # the idf clamp is exercised
    rng = random.Random(seed_value)
    out = [[ranked[0]], [ranked[0], ranked[1], ranked[0]], ["nosuchwordanywhere"], [ranked[-1], "zzqx"]]
    for _ in range(n):
        pool = ranked[:30] if rng.random() < 0.4 else ranked
        out.append([rng.choice(pool) for _ in range(rng.randint(1, 6))])
    return out


def assert_same_as_fts5(engine, index, table, porter, n_queries=30, clamped=True):
    """``table`` is the reference for a caller who sees every chunk; developers get their own twin."""
    references = {caller: table if caller.sees_everything else visible_twin(engine, porter, caller)
                  for caller in CALLERS}
    conn = engine.conn
    conn.execute("BEGIN")
    try:
        index.refresh(conn)
        compared = 0
        for words in queries(conn, n_queries, clamped=clamped):
            terms = [t for w in words for t in tokenize(w, porter)]
            for caller in CALLERS:
                for scope in SCOPES:
                    expected = fts5_top(conn, references[caller], words, visible_audiences(caller), scope, porter)
                    got = index.search(terms, 50, visible_audiences(caller), scope)
                    assert [int(c) for c in got.chunk_ids] == [r[0] for r in expected], (words, caller, scope)
                    np.testing.assert_allclose(got.bm25, [r[1] for r in expected], rtol=1e-9, atol=0)
                    compared += len(expected)
        assert compared > 5_000  # the queries really matched many visible rows
    finally:
        conn.execute("COMMIT")


def twin_table(engine, porter):
    """An FTS5 twin of RAG_FTS over the same RAG_CHUNK rows, with or without porter (rebuilt: it has no
    triggers), so both tokenizers are compared whatever RAG_FTS itself uses (porter since V8)."""
    table = TWIN_FTS[porter]
    tokenizer = ("porter " if porter else "") + "unicode61 remove_diacritics 2"
    with engine._write() as conn:
        conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS {table} USING fts5(CONTENT, content = 'RAG_CHUNK', "
                     f"content_rowid = 'CHUNK_ID', tokenize = '{tokenizer}')")
        conn.execute(f"INSERT INTO {table} ({table}) VALUES ('rebuild')")
    return table


def visible_twin(engine, porter, caller):
    """An FTS5 table over a view of only the chunks ``caller`` may see (rebuilt now): its bm25() is
    computed from their visible set alone, which is what the index must answer them."""
    audiences = visible_audiences(caller)
    view, table = f"LEX_VISIBLE_{caller.employee_id}", f"LEX_VISIBLE_{caller.employee_id}_{int(porter)}_FTS"
    tokenizer = ("porter " if porter else "") + "unicode61 remove_diacritics 2"
    with engine._write() as conn:
        conn.execute(f"CREATE VIEW IF NOT EXISTS {view} AS SELECT CHUNK_ID, CONTENT FROM RAG_CHUNK "
                     f"WHERE AUDIENCE IN ({', '.join(str(int(a)) for a in audiences)})")
        conn.execute(f"DROP TABLE IF EXISTS {table}")
        conn.execute(f"CREATE VIRTUAL TABLE {table} USING fts5(CONTENT, content = '{view}', "
                     f"content_rowid = 'CHUNK_ID', tokenize = '{tokenizer}')")
        conn.execute(f"INSERT INTO {table} ({table}) VALUES ('rebuild')")
    return table


def change_everything(engine):
    """Inserts, text updates, access changes and deletes, as the worker and the triggers make them."""
    seed(engine, random_texts(80, seed=21), 5000, 8)  # new chunks
    seed(engine, [t.upper() + " cambio" for t in random_texts(40, seed=22)], 1, 9)  # same keys: updated text
    with engine._write() as conn:
        conn.execute("UPDATE RAG_CHUNK SET AUDIENCE = 1 WHERE SOURCE_TYPE = 'task' AND SOURCE_ID % 5 = 2")
        conn.execute("DELETE FROM RAG_CHUNK WHERE SOURCE_ID % 7 = 3")


@pytest.mark.parametrize("porter", [False, True], ids=["unicode61", "porter"])
def test_rankings_and_scores_equal_fts5_before_and_after_changes(chunks, porter):
    table = twin_table(chunks, porter)
    index = LexicalIndex(porter=porter)
    assert_same_as_fts5(chunks, index, table, porter)
    loaded_seq = index.seq
    change_everything(chunks)
    twin_table(chunks, porter)
    assert_same_as_fts5(chunks, index, table, porter)
    assert index.seq > loaded_seq and index.dead > 0  # applied incrementally, not reloaded


def test_compaction_and_delta_merge_keep_the_answers(chunks, monkeypatch):
    index = LexicalIndex()  # stems as RAG_FTS does (porter since V8), so RAG_FTS itself is the reference
    assert_same_as_fts5(chunks, index, "RAG_FTS", True, n_queries=15)
    monkeypatch.setattr(lexical_index, "_MERGE_MIN", 0)  # merge the delta at once
    monkeypatch.setattr(lexical_index, "_MERGE_RATIO", 0.0)
    postings = len(index.post_rows)
    seed(chunks, random_texts(50, seed=31), 7000, 4)
    assert_same_as_fts5(chunks, index, "RAG_FTS", True, n_queries=15)
    assert index.delta == {} and len(index.post_rows) > postings  # merged into the CSR arrays
    with chunks._write() as conn:
        conn.execute("DELETE FROM RAG_CHUNK WHERE CHUNK_ID % 3 = 0")
    rows_before = index.n
    assert_same_as_fts5(chunks, index, "RAG_FTS", True, n_queries=15, clamped=False)
    assert index.dead == 0 and index.n < rows_before * 0.75  # tombstones dropped, rows renumbered
    assert len(index) == chunks.conn.execute("SELECT COUNT(*) FROM RAG_CHUNK").fetchone()[0]


def test_hybrid_refreshes_both_indexes_from_one_snapshot_and_reloads_after_a_wipe(chunks):
    q = unit_vectors(np.random.default_rng(1), 1)[0]
    manager = CALLERS[0]
    assert chunks.search(q, "deploy", manager, 5, Scope(), "vector").hits
    assert chunks._lexical is None  # a vector-only process never pays for the lexical index
    chunks.search(q, "deploy", manager, 5, Scope(), "hybrid")
    change_everything(chunks)
    chunks.search(q, "deploy", manager, 5, Scope(), "hybrid")
    vector, lexical = chunks._index, chunks._lexical
    assert (vector.epoch, vector.seq) == (lexical.epoch, lexical.seq)
    assert set(vector.where) == set(lexical.where)
    chunks.wipe()
    seed(chunks, ["despliegue del clúster"], 1, 2)
    hits = chunks.search(q, "cluster", manager, 5, Scope(), "hybrid").hits
    assert [h.content for h in hits] == ["despliegue del clúster"] and len(chunks._lexical) == 1


def test_index_stems_exactly_when_rag_fts_uses_porter(sqlite_engine):
    """RAG_FTS stems since V8 and the index with it; a migration that changes RAG_FTS's tokenizer (and
    bumps the epoch, as V8 does) changes the index with it."""
    seed(sqlite_engine, ["connections failing on the gateway", "unrelated words"], 1, 6)
    q = unit_vectors(np.random.default_rng(2), 1)[0]
    manager = CALLERS[0]
    sqlite_engine.search(q, "connected", manager, 1, Scope(), "hybrid")
    lexical = sqlite_engine._lexical
    assert lexical.stemmed and lexical.query_terms(["Connected", "FAILS"], 64) == ["connect", "fail"]
    hits = lexical.search(lexical.query_terms(["connected"], 64), 5, None, Scope())
    expected = sqlite_engine.conn.execute(
        "SELECT rowid, bm25(RAG_FTS) FROM RAG_FTS WHERE RAG_FTS MATCH '\"connected\"'").fetchall()
    assert [(int(c), float(s)) for c, s in zip(hits.chunk_ids, hits.bm25)] == expected and len(expected) == 1
    with sqlite_engine._write() as conn:
        conn.execute("DROP TABLE RAG_FTS")
        conn.execute("CREATE VIRTUAL TABLE RAG_FTS USING fts5(CONTENT, content = 'RAG_CHUNK', content_rowid = 'CHUNK_ID',"
                     " tokenize = 'unicode61 remove_diacritics 2')")
        conn.execute("INSERT INTO RAG_FTS (RAG_FTS) VALUES ('rebuild')")
        conn.execute(sql.BUMP_EPOCH)
    sqlite_engine.search(q, "connected", manager, 1, Scope(), "hybrid")
    lexical = sqlite_engine._lexical
    assert not lexical.stemmed and lexical.query_terms(["Connected"], 64) == ["connected"]
    assert lexical.search(["connect"], 5, None, Scope()).chunk_ids.size == 0


def test_a_refresh_interrupted_half_way_reloads_everything_next_time(chunks, monkeypatch):
    """A failure inside an incremental refresh (here: while adding changed rows) must not leave a
    half-updated index that later searches trust."""
    index = LexicalIndex(porter=True)
    assert_same_as_fts5(chunks, index, "RAG_FTS", True, n_queries=15)
    change_everything(chunks)

    def broken(*args):
        raise MemoryError("simulated")

    monkeypatch.setattr(index, "_add_changed", broken)
    chunks.conn.execute("BEGIN")
    try:
        with pytest.raises(MemoryError):
            index.refresh(chunks.conn)
    finally:
        chunks.conn.execute("COMMIT")
    assert index.epoch is None and len(index) == 0  # emptied: the next refresh reloads
    monkeypatch.undo()
    assert_same_as_fts5(chunks, index, "RAG_FTS", True, n_queries=15)
