"""The read path: the query's vector made in the database, role-scoped FETCH APPROX with the
exact fallback, the Oracle Text arm, fusion and hit assembly. Functions take an open cursor."""

from __future__ import annotations

import logging
from array import array
from collections.abc import Sequence
from typing import Any

import numpy as np

from app.domain import Caller, Scope, SearchHit, SearchMode, SearchResult
from app.engines.oracle import search_statements as sql
from app.engines.base import UnavailableError
from app.engines.oracle.errors import call_timed_out, model_required, unavailable
from app.engines.oracle.text_statistics import TextStatisticsCache
from app.rag import bm25
from app.rag.access import member_projects
from app.rag.fts_tokens import tokenize
from app.rag.fusion import candidate_depth, ranks, reciprocal_rank_fusion
from app.rag.lexical import query_terms

log = logging.getLogger(__name__)

DIMENSIONS = 384
QUERY_TEXT_MAX_BYTES = 4000  # VECTOR_EMBEDDING input is a VARCHAR2 (FACTS.md §2)
# The text arm re-ranks at least this many Oracle Text candidates: exact (every visible match) up to here.
TEXT_CANDIDATES = 200


def embed_query(cur: Any, model_name: str, text: str) -> np.ndarray:
    text = text.encode("utf-8")[:QUERY_TEXT_MAX_BYTES].decode("utf-8", "ignore")
    with model_required(model_name):
        cur.execute(sql.embed_query(model_name), q=text)
    (vector,) = cur.fetchone()
    return np.asarray(vector, dtype=np.float32)


def search(
    cur: Any,
    qv: array,
    query_text: str,
    caller: Caller,
    k: int,
    scope: Scope,
    mode: SearchMode,
    statistics: TextStatisticsCache | None = None,
) -> SearchResult:
    """``qv`` is the question's vector as ``vector_bind`` makes it; ``statistics`` the engine's cache of the text
    arm's statistics (None: read them every time)."""
    if mode == "vector":
        vector_rows, answered_by = _vector_arm(cur, caller, scope, qv, k)
        return SearchResult([_hit(row, 1.0 - _distance(row), vector_rank=i)
                             for i, row in enumerate(vector_rows[:k], start=1)], mode, answered_by)
    pool = candidate_depth(k)
    vector_rows: list = []
    answered_by = "text"
    if mode == "hybrid":
        vector_rows, answered_by = _vector_arm(cur, caller, scope, qv, pool)
    # Hybrid survives an Oracle Text failure on its vector arm; lexical mode has nothing else to answer with.
    text_rows, dropped = _text_arm(cur, caller, scope, qv, query_text, pool, mode == "hybrid", statistics)
    arms = [[_key(row) for row in arm] for arm in ([vector_rows] if mode == "hybrid" else []) + [text_rows]]
    by_key = {_key(row): row for row in [*text_rows, *vector_rows]}
    vector_ranks, text_ranks = ranks(arms[0]) if mode == "hybrid" else {}, ranks(arms[-1])
    fused = reciprocal_rank_fusion(*arms)
    return SearchResult([_hit(by_key[key], score, vector_ranks.get(key), text_ranks.get(key))
                         for key, score in fused[:k]], mode, answered_by, lexical_dropped=dropped)


def _vector_arm(cur: Any, caller: Caller, scope: Scope, qv: array, k: int) -> tuple[list, str]:
    """FETCH APPROX; when it comes back short, the same query with FETCH EXACT (FACTS.md §3, §11.1).

    IVF plans only look inside the probed partitions, so a filtered approximate query can
    return fewer than k rows (even 0) although k are visible. The exact rerun answers with
    every visible row. (An unfiltered short answer means the table holds fewer than k chunks
    or the probes missed: the exact rerun is right, and cheap, there too.)
    """
    text, binds = sql.vector_search(caller, scope, exact=False)
    cur.execute(text, {**binds, "qv": qv, "k": k})
    rows = cur.fetchall()
    if len(rows) >= k:
        return rows, "approx"
    text, binds = sql.vector_search(caller, scope, exact=True)
    cur.execute(text, {**binds, "qv": qv, "k": k})
    return cur.fetchall(), "exact-fallback"


def _text_arm(cur: Any, caller: Caller, scope: Scope, qv: array, query_text: str, n: int,
              tolerate_errors: bool, statistics: TextStatisticsCache | None = None) -> tuple[list, str | None]:
    """Oracle Text finds the candidates; BM25 over the caller's own statistics orders them (app/rag/bm25.py).

    SCORE's term weights count every chunk in the index, so a hidden chunk holding a word would reorder what
    the caller sees (an existence oracle, issue 26 point 6), and Oracle Text cannot compute them over a subset.
    So N, n(t) and the mean length come from counts under the access rule, and the candidates (every visible
    match when at most TEXT_CANDIDATES match, else Oracle Text's best that many) are re-ranked in Python from
    their own text. Residual, in docs/ORACLE.md: past TEXT_CANDIDATES matches, which rows are candidates still
    follows SCORE. Returns the rows and, when hybrid search answered without them, why (the caller counts it:
    REVIEW-4 W1, a dropped arm is never silent).
    """
    terms = query_terms(query_text)
    if not terms:
        return [], None
    try:
        stats = _visible_statistics(cur, caller, terms, statistics)
        if not stats.rows or not any(stats.holding.values()):
            return [], None
        text, binds = sql.text_search(caller, scope)
        cur.execute(text, {**binds, "tq": text_query(query_text), "qv": qv, "n": max(n, TEXT_CANDIDATES)})
        rows = cur.fetchall()
    except Exception as exc:  # Oracle Text trouble must not take vector search down with it
        if not tolerate_errors:  # lexical mode: nothing else can answer; "not now", not a 500
            raise unavailable(exc) or UnavailableError(
                f"Oracle Text cannot answer a lexical search ({exc}); vector and hybrid search still work, "
                "and `ragctl oracle doctor` checks the text index", 30) from exc
        reason = dropped_reason(exc)
        log.warning("Oracle Text arm of hybrid search dropped (%s), answering from vectors only: %s", reason, exc)
        return [], reason
    by_key = {_key(row): row for row in rows}
    order = bm25.rank([(key, row[3]) for key, row in by_key.items()], [_folded(t) for t in terms], stats, tokenize)
    return [by_key[key] for key in order[:n]], None


def dropped_reason(exc: BaseException) -> str:
    """The metric label of a dropped text arm: the call timeout, another "not now" fault, or an Oracle Text error."""
    fault = unavailable(exc)
    if fault is None:
        return "error"
    return "timeout" if call_timed_out(exc) else "unavailable"


def _visible_statistics(cur: Any, caller: Caller, terms: list[str],
                        cache: TextStatisticsCache | None = None) -> bm25.Statistics:
    """N and the mean length of the chunks the caller may see, and how many of them hold each term: from the
    cache when this process has read them since its last write, else from the database (text_statistics)."""
    # A visibility class: everything, or a developer's own set, which under the project rule also depends on the
    # projects they are a member of (a membership change is a new class, whatever process wrote it).
    members = member_projects(caller)
    visibility = None if caller.sees_everything else (caller.employee_id, members) if members else caller.employee_id
    generation = cache.generation() if cache is not None else 0
    totals = cache.totals(visibility) if cache is not None else None
    if totals is None:
        text, binds = sql.text_statistics(caller)
        cur.execute(text, binds)
        rows, mean_length = cur.fetchone() or (0, None)
        totals = (int(rows or 0), float(mean_length or 0.0))
        if cache is not None:
            cache.put_totals(visibility, generation, *totals)
    holding: dict[str, int] = {}
    if not totals[0]:
        return bm25.Statistics(0, totals[1], holding)
    folded = list(dict.fromkeys(_folded(term) for term in terms))
    counted, missing = cache.terms(visibility, folded) if cache is not None else ({}, folded)
    holding.update(counted)
    text, binds = sql.text_term_rows(caller)
    for term in terms:  # a term that folds like another (accents) adds its own matches, as before
        if _folded(term) in missing:
            cur.execute(text, {**binds, "tq": braced(term)})
            holding[_folded(term)] = holding.get(_folded(term), 0) + int((cur.fetchone() or (0,))[0])
    if cache is not None:
        for term in missing:
            cache.put_term(visibility, generation, term, holding.get(term, 0))
    return bm25.Statistics(*totals, holding)


def _folded(term: str) -> str:
    """A query term as the re-ranking's tokenizer spells it (lower case, no diacritics)."""
    return "".join(tokenize(term)) or term.lower()


def text_query(text: str) -> str:
    """The question's terms (app.rag.lexical) as an Oracle Text query: '{tok1} ACCUM {tok2}' ("" for none).

    Braces are Oracle Text's documented escape of a whole term (FACTS.md §12.4): a reserved word
    (NEAR, ABOUT, AND, ...) inside them is a plain term. A term holds only letters and digits, so
    no brace, wildcard (``%``, ``_``) or operator character can reach the query. ACCUM ranks rows
    by how many terms they contain (FACTS.md §8B).
    """
    return " ACCUM ".join(braced(term) for term in query_terms(text))


def braced(term: str) -> str:
    """One Oracle Text term in braces, its documented escape (FACTS.md §12.4): letters and digits only."""
    if not term or not all(c.isalnum() for c in term):
        raise ValueError(f"an Oracle Text term holds letters and digits only, got {term!r}")
    return f"{{{term}}}"


def vector_bind(vector: np.ndarray) -> array:
    """FLOAT32 binds as array('f'): a list would bind as FLOAT64 (FACTS.md §1, §11.3)."""
    values = np.ascontiguousarray(np.asarray(vector, dtype=np.float32).ravel())
    if values.size != DIMENSIONS or not np.all(np.isfinite(values)):
        raise ValueError(f"the query vector must be {DIMENSIONS} finite floats (FACTS.md §11.4)")
    out = array("f")
    out.frombytes(values.tobytes())
    return out


def _key(row: Sequence[Any]) -> tuple[str, int, int]:
    return (row[0], int(row[1]), int(row[2]))


def _distance(row: Sequence[Any]) -> float:
    return 2.0 if row[4] is None else float(row[4])  # NULL only for a chunk without a vector


def _hit(row: Sequence[Any], score: float, vector_rank: int | None = None,
         lexical_rank: int | None = None) -> SearchHit:
    return SearchHit(
        source_type=row[0],
        source_id=int(row[1]),
        chunk_ix=int(row[2]),
        content=row[3],
        distance=_distance(row),
        score=float(score),
        vector_rank=vector_rank,
        lexical_rank=lexical_rank,
    )
