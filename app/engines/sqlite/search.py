"""The read path: exact vector search and BM25 over the in-memory indexes, fusion, hit assembly.

The access rule (the caller's audiences and, under RAG_ACCESS_RULE=project, the tasks of their member projects)
and the scope are applied inside both arms, before their top-k (DESIGN.md).
"""

from __future__ import annotations

import apsw
import numpy as np

from app.domain import Caller, Scope, SearchHit, SearchMode, SearchResult
from app.engines.sqlite import statements as sql
from app.engines.sqlite.lexical_index import LexicalIndex
from app.engines.sqlite.vector_index import VectorIndex
from app.rag.access import member_projects, visible_audiences
from app.rag.fusion import candidate_depth, ranks, reciprocal_rank_fusion
from app.rag.lexical import MAX_TERMS, query_terms

NO_VECTOR_DISTANCE = 2.0  # a chunk without a vector (as Oracle's NULL distance): farthest possible


def search(
    conn: apsw.Connection,
    index: VectorIndex,
    query_vector: np.ndarray,
    query_text: str,
    caller: Caller,
    k: int,
    scope: Scope,
    mode: SearchMode,
    lexical: LexicalIndex | None = None,
) -> SearchResult:
    """Run inside one read transaction in which ``index`` was refreshed, so hits match the index."""
    audiences, members = visible_audiences(caller), member_projects(caller)
    # Under the project rule, the chunks of tasks the tracker restricts (TASKS.RESTRICTED), read in this same read
    # transaction: no membership grants them, and a flag set or cleared counts at once.
    withheld = [row[0] for row in conn.execute(sql.WITHHELD_CHUNKS)] if members else []
    if mode == "vector":
        best = index.search(query_vector, k, audiences, scope, members, withheld)
        ranked = [(int(c), 1.0 - float(d)) for c, d in zip(best.chunk_ids, best.distances)]
        distances = {c: 1.0 - s for c, s in ranked}
        return SearchResult(_hits(conn, ranked, distances, ranks([c for c, _ in ranked]), {}), mode, "memory")
    vector_arm = [int(c) for c in index.search(query_vector, candidate_depth(k), audiences, scope, members,
                                                       withheld).chunk_ids] \
        if mode == "hybrid" else []
    lexical_arm = _lexical(lexical, query_text, audiences, (members, withheld), scope, candidate_depth(k))
    # Each arm ranks its own visible candidates; reciprocal rank fusion merges them (one arm: its order).
    fused = reciprocal_rank_fusion(*([vector_arm] if mode == "hybrid" else []), lexical_arm)[:k]
    ranked = [(int(c), float(s)) for c, s in fused]
    distances = index.distances(query_vector, [c for c, _ in ranked])
    return SearchResult(_hits(conn, ranked, distances, ranks(vector_arm), ranks(lexical_arm)), mode, "memory")


def _lexical(lexical: LexicalIndex, text: str, audiences, membership, scope: Scope, limit: int) -> list[int]:
    """FTS5's BM25 ranking (RAG_FTS MATCH '"t1" OR "t2" ...') of the question's terms, answered by the
    in-memory index that mirrors RAG_FTS; ``membership``: the member projects and the withheld chunk ids."""
    terms = lexical.query_terms(query_terms(text), MAX_TERMS)
    return [int(c) for c in lexical.search(terms, limit, audiences, scope, *membership).chunk_ids]


def _hits(conn, ranked: list[tuple[int, float]], distances: dict[int, float], vector_ranks: dict,
          lexical_ranks: dict) -> list[SearchHit]:
    if not ranked:
        return []
    ids = [c for c, _ in ranked]
    rows = {row[0]: row[1:] for row in conn.execute(sql.hit_rows(ids), ids)}
    hits = []
    for chunk_id, score in ranked:
        source_type, source_id, chunk_ix, content = rows[chunk_id]
        distance = distances.get(chunk_id, NO_VECTOR_DISTANCE)
        hits.append(SearchHit(source_type, source_id, chunk_ix, content, distance, score,
                              vector_ranks.get(chunk_id), lexical_ranks.get(chunk_id)))
    return hits

