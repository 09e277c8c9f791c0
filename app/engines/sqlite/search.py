"""The read path: exact vector search and BM25 over the in-memory indexes, fusion, hit assembly.

The access rule and the scope are applied inside both arms, before their top-k (DESIGN.md).
"""

from __future__ import annotations

import re
import apsw
import numpy as np

from app.domain import Caller, Scope, SearchHit, SearchMode, SearchResult
from app.engines.sqlite import statements as sql
from app.engines.sqlite.lexical_index import LexicalIndex
from app.engines.sqlite.vector_index import VectorIndex
from app.rag.access import visible_audiences
from app.rag.fusion import candidate_depth, reciprocal_rank_fusion

MAX_QUERY_TOKENS = 64
_WORD = re.compile(r"\w+", re.UNICODE)


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
        ranked = [(int(c), 1.0 - float(d)) for c, d in zip(best.chunk_ids, best.distances)]
        distances = {c: 1.0 - s for c, s in ranked}
    else:
        ranked, distances = _hybrid(conn, index, query_vector, query_text, audiences, k, scope, lexical)
    return SearchResult(_hits(conn, ranked, distances), mode, "memory")


def _hybrid(conn, index, query_vector, query_text, audiences, k, scope, lexical):
    depth = candidate_depth(k)
    vector_ids = [int(c) for c in index.search(query_vector, depth, audiences, scope).chunk_ids]
    lexical_ids = _lexical(lexical, query_text, audiences, scope, depth)
    fused = reciprocal_rank_fusion(vector_ids, lexical_ids)[:k]
    distances = index.distances(query_vector, [c for c, _ in fused])
    return [(int(c), float(s)) for c, s in fused], distances


def _lexical(lexical: LexicalIndex, text: str, audiences, scope: Scope, limit: int) -> list[int]:
    """FTS5's BM25 ranking of ``fts_query(text)`` over RAG_FTS, answered by the in-memory index."""
    terms = lexical.query_terms(_WORD.findall(text or "")[:MAX_QUERY_TOKENS], MAX_QUERY_TOKENS)
    return [int(c) for c in lexical.search(terms, limit, audiences, scope).chunk_ids]


def _hits(conn, ranked: list[tuple[int, float]], distances: dict[int, float]) -> list[SearchHit]:
    if not ranked:
        return []
    ids = [c for c, _ in ranked]
    rows = {row[0]: row[1:] for row in conn.execute(sql.hit_rows(ids), ids)}
    hits = []
    for chunk_id, score in ranked:
        source_type, source_id, chunk_ix, content = rows[chunk_id]
        hits.append(SearchHit(source_type, source_id, chunk_ix, content, distances[chunk_id], score))
    return hits


def fts_query(text: str) -> str | None:
    """User text as an FTS5 query that cannot be a syntax error: quoted words joined with OR."""
    words = _WORD.findall(text or "")[:MAX_QUERY_TOKENS]
    return " OR ".join(f'"{w}"' for w in words) if words else None

