"""The read path: exact vector search and BM25 over the in-memory indexes, fusion, hit assembly.

The access rule and the scope are applied inside both arms, before their top-k (DESIGN.md).
"""

from __future__ import annotations

import apsw
import numpy as np

from app.domain import Caller, Scope, SearchHit, SearchMode, SearchResult
from app.engines.sqlite import statements as sql
from app.engines.sqlite.lexical_index import LexicalIndex
from app.engines.sqlite.vector_index import VectorIndex
from app.rag.access import visible_audiences
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
    audiences = visible_audiences(caller)
    if mode == "vector":
        best = index.search(query_vector, k, audiences, scope)
        ids = [int(c) for c in best.chunk_ids]
        ranked = [(c, 1.0 - float(d)) for c, d in zip(ids, best.distances)]
        distances = {c: 1.0 - s for c, s in ranked}
        return SearchResult(_hits(conn, ranked, distances, {"vector": ranks(ids)}), mode, "memory")
    ranked, arm_ranks = _fused(index, lexical, query_vector, query_text, audiences, k, scope, mode)
    distances = index.distances(query_vector, [c for c, _ in ranked])
    return SearchResult(_hits(conn, ranked, distances, arm_ranks), mode, "memory")


def _fused(index, lexical, query_vector, query_text, audiences, k, scope,
           mode) -> tuple[list[tuple[int, float]], dict[str, dict]]:
    """Each arm ranks its own visible candidates; reciprocal rank fusion merges them (one arm: its order).
    Also returns each arm's ranks, by arm name."""
    depth = candidate_depth(k)
    arms: dict[str, list[int]] = {}
    if mode == "hybrid":
        arms["vector"] = [int(c) for c in index.search(query_vector, depth, audiences, scope).chunk_ids]
    arms["lexical"] = _lexical(lexical, query_text, audiences, scope, depth)
    fused = [(int(c), float(s)) for c, s in reciprocal_rank_fusion(*arms.values())[:k]]
    return fused, {name: ranks(ids) for name, ids in arms.items()}


def _lexical(lexical: LexicalIndex, text: str, audiences, scope: Scope, limit: int) -> list[int]:
    """FTS5's BM25 ranking (RAG_FTS MATCH '"t1" OR "t2" ...') of the question's terms, answered by the
    in-memory index that mirrors RAG_FTS."""
    terms = lexical.query_terms(query_terms(text), MAX_TERMS)
    return [int(c) for c in lexical.search(terms, limit, audiences, scope).chunk_ids]


def _hits(conn, ranked: list[tuple[int, float]], distances: dict[int, float],
          arm_ranks: dict[str, dict]) -> list[SearchHit]:
    if not ranked:
        return []
    ids = [c for c, _ in ranked]
    rows = {row[0]: row[1:] for row in conn.execute(sql.hit_rows(ids), ids)}
    hits = []
    for chunk_id, score in ranked:
        source_type, source_id, chunk_ix, content = rows[chunk_id]
        distance = distances.get(chunk_id, NO_VECTOR_DISTANCE)
        hits.append(SearchHit(source_type, source_id, chunk_ix, content, distance, score,
                              arm_ranks.get("vector", {}).get(chunk_id), arm_ranks.get("lexical", {}).get(chunk_id)))
    return hits

