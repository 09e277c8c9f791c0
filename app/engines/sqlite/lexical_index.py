"""An in-memory BM25 index mirrored from RAG_CHUNK, scoring exactly as FTS5's bm25() on RAG_FTS.

Why not FTS5's MATCH: it computes bm25() for every matching row before its ORDER BY ... LIMIT
(no top-k pruning), so a common word costs ~50 ms at 100k chunks. Here postings are numpy
arrays and a query is a few vectorised gathers and scatters.

Same answers as ``SELECT ... WHERE RAG_FTS MATCH '"t1" OR "t2" ...' ORDER BY bm25(RAG_FTS), CHUNK_ID``:
terms come from app.rag.fts_tokens (FTS5's unicode61 tokenizer, optionally porter) and the score is
fts5_aux.c's (app/rag/bm25.py, whose constants both engines use):
  idf(t) = ln((N - n(t) + 0.5) / (n(t) + 0.5)), clamped to 1e-6 when <= 0 (very common terms),
  bm25  = sum over the query's phrases, in order, of idf * tf*(k1+1) / (tf + k1*(1 - b + b*D/avgdl)),
with k1 = 1.2, b = 0.75, D the chunk's token count; a phrase repeated in the query counts each time.
The statistics N, n(t) and avgdl are the caller's own (DESIGN.md, Trust model): over the chunks the
caller may see, so a chunk they cannot see moves neither their scores nor their order (a hidden chunk
holding a word would otherwise lower that word's idf and flip their ranking: an existence oracle). For
a caller who sees everything that is every chunk, i.e. RAG_FTS's own bm25(); for a developer it is
the bm25() FTS5 would give over a table holding only their visible chunks (tests/sqlite/
test_lexical_index.py compares both). The scope is a mask applied before the top-k, not a change of
statistics: what is out of scope is still the caller's to see. Ties go to the lower chunk id.

Freshness works like VectorIndex: the RAG_CHUNK_CHANGES ids past the last SEQ are re-read inside
the caller's read transaction; RAG_META.epoch or pruning forces a full reload. Postings of added
chunks go to a small delta merged into the CSR arrays when it grows; deleted chunks are
tombstones, dropped (rows renumbered) when they pass a quarter of the rows.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import islice

import apsw
import numpy as np

from app.domain import Scope
from app.engines.sqlite import statements as sql
from app.engines.sqlite.change_log import FollowsChangeLog
from app.engines.sqlite.vector_index import NULL_ID, TASK_CODE, TYPE_CODE, ScopeCodes, best_k
from app.rag.bm25 import B, K1, MIN_IDF
from app.rag.fts_tokens import query_terms, tokenize

_COMPACT_RATIO = 0.25
_MERGE_RATIO = 0.1  # merge the delta into the CSR arrays past this share of the postings...
_MERGE_MIN = 10_000  # ...or this many postings, whichever is larger
_LOAD_BATCH = 10_000
_ROW_FIELDS = (("ids", np.int64, 0), ("doclen", np.float64, 0), ("audience", np.int64, 0),
               ("types", np.int8, 0), ("projects", np.int64, NULL_ID), ("sprints", np.int64, NULL_ID),
               ("doc_types", np.int32, NULL_ID), ("alive", bool, False))


@dataclass(frozen=True)
class LexicalHits:
    """Best rows of one lexical search, by (bm25, chunk id); bm25 is FTS5's (negative, lower is better)."""

    chunk_ids: np.ndarray
    bm25: np.ndarray


class LexicalIndex(FollowsChangeLog):
    """Not thread-safe by itself: the engine serialises refresh and search with one lock."""

    def __init__(self, porter: bool | None = None) -> None:
        self.porter = porter  # None: stem iff RAG_FTS's tokenizer is porter (read at each full load)
        self.stemmed = bool(porter)
        self._reset()

    def _reset(self) -> None:
        self.terms: dict[str, int] = {}
        self.ptr = np.zeros(1, np.int64)  # CSR over term ids: postings of term t at ptr[t]:ptr[t+1]
        self.post_rows = np.zeros(0, np.int32)
        self.post_tf = np.zeros(0, np.float64)
        self.delta: dict[int, tuple[list[int], list[int]]] = {}  # term id -> (rows, tfs) not yet merged
        self.delta_size = 0
        self.n = self.dead = 0
        for name, dtype, fill in _ROW_FIELDS:
            setattr(self, name, np.full(64, fill, dtype))
        self.where: dict[int, int] = {}  # chunk id -> row
        self.total_tokens = 0
        self.audience_rows: Counter[int] = Counter()  # live rows and their tokens per audience: the
        self.audience_tokens: Counter[int] = Counter()  # N and avgdl of each caller's visible set
        self.doc_type_codes: dict[str, int] = {}
        self.epoch: int | None = None
        self.seq = 0
        self._norm: np.ndarray | None = None  # k1*(1-b+b*D/avgdl) per row, until the rows change

    def __len__(self) -> int:
        return len(self.where)

    # --- freshness (refresh: change_log.FollowsChangeLog) ----------------------------------------
    def _add_changed(self, conn: apsw.Connection, chunk_ids: list[int]) -> None:
        for row in conn.execute(sql.lexical_rows(chunk_ids), chunk_ids):
            self._add(*row)

    def _settle(self) -> None:
        compact = self.dead > 32 and self.dead > _COMPACT_RATIO * self.n
        if compact or self.delta_size > max(_MERGE_MIN, _MERGE_RATIO * len(self.post_rows)):
            self._rebuild(compact)

    def _full_load(self, conn: apsw.Connection, epoch: int, max_seq: int) -> None:
        """Every chunk, tokenised in batches whose (term, row, tf) triples become the CSR arrays."""
        self._reset()
        if self.porter is None:
            definition = conn.execute(sql.FTS_DEFINITION).fetchone()
            self.stemmed = definition is not None and "porter" in definition[0].lower()
        triples: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        cursor = conn.execute(sql.lexical_rows(None))
        while batch := list(islice(cursor, _LOAD_BATCH)):
            term_ids: list[int] = []
            row_of: list[int] = []
            for chunk_id, audience, stype, project, sprint, doc_type, content in batch:
                tokens = tokenize(content, self.stemmed)
                row = self._append_row(chunk_id, audience, stype, project, sprint, doc_type, len(tokens))
                setdefault = self.terms.setdefault
                term_ids.extend([setdefault(t, len(self.terms)) for t in tokens])
                row_of.extend([row] * len(tokens))
            if term_ids:
                keys, tf = np.unique((np.array(term_ids, np.int64) << 32) | np.array(row_of, np.int64),
                                     return_counts=True)
                triples.append(((keys >> 32), (keys & 0xFFFFFFFF), tf))
        self._set_postings(triples)
        self.epoch, self.seq = epoch, max_seq

    def _append_row(self, chunk_id, audience, stype, project, sprint, doc_type, length) -> int:
        if self.n == len(self.ids):
            for name, dtype, fill in _ROW_FIELDS:
                grown = np.full(2 * self.n, fill, dtype)
                grown[: self.n] = getattr(self, name)[: self.n]
                setattr(self, name, grown)
        row = self.n
        self.ids[row], self.doclen[row], self.audience[row] = chunk_id, length, audience
        self.types[row] = TYPE_CODE[stype]
        self.projects[row] = NULL_ID if project is None else project
        self.sprints[row] = NULL_ID if sprint is None else sprint
        self.doc_types[row] = (NULL_ID if doc_type is None
                               else self.doc_type_codes.setdefault(doc_type, len(self.doc_type_codes)))
        self.alive[row] = True
        self.n += 1
        self.where[chunk_id] = row
        self.total_tokens += length
        self.audience_rows[audience] += 1
        self.audience_tokens[audience] += length
        self._norm = None
        return row

    def _add(self, chunk_id, audience, stype, project, sprint, doc_type, content) -> None:
        tokens = tokenize(content, self.stemmed)
        row = self._append_row(chunk_id, audience, stype, project, sprint, doc_type, len(tokens))
        for term, tf in Counter(tokens).items():
            rows, tfs = self.delta.setdefault(self.terms.setdefault(term, len(self.terms)), ([], []))
            rows.append(row)
            tfs.append(tf)
        self.delta_size += len(set(tokens))

    def _remove(self, chunk_id: int) -> None:
        row = self.where.pop(chunk_id, None)
        if row is not None:
            self.alive[row] = False
            self.total_tokens -= int(self.doclen[row])
            self.audience_rows[int(self.audience[row])] -= 1
            self.audience_tokens[int(self.audience[row])] -= int(self.doclen[row])
            self.dead += 1
            self._norm = None  # avgdl changed

    def _rebuild(self, compact: bool) -> None:
        """Merge the delta into the CSR arrays; with ``compact``, also drop dead rows and renumber."""
        counts = np.diff(self.ptr)
        triples = [(np.repeat(np.arange(len(counts), dtype=np.int64), counts), self.post_rows, self.post_tf)]
        for term, (rows, tfs) in self.delta.items():
            triples.append((np.full(len(rows), term, np.int64), np.array(rows, np.int64), np.array(tfs)))
        if compact:
            keep = np.flatnonzero(self.alive[: self.n])
            new_row = np.full(self.n, -1, np.int64)
            new_row[keep] = np.arange(len(keep))
            triples = [(t, new_row[r], f) for t, r, f in triples]
            for name, _, fill in _ROW_FIELDS:
                array = getattr(self, name)
                array[: len(keep)] = array[keep]
                array[len(keep) : self.n] = fill
            self.n, self.dead = len(keep), 0
            self.where = {int(cid): row for row, cid in enumerate(self.ids[: self.n])}
            self._norm = None
        self._set_postings(triples)

    def _set_postings(self, triples) -> None:
        """CSR arrays from (term ids, rows, tfs) pieces; rows < 0 (compacted away) are dropped."""
        terms = np.concatenate([t for t, _, _ in triples]) if triples else np.zeros(0, np.int64)
        rows = np.concatenate([r for _, r, _ in triples]) if triples else np.zeros(0, np.int64)
        tfs = np.concatenate([f for _, _, f in triples]) if triples else np.zeros(0)
        keep = rows >= 0
        if not keep.all():
            terms, rows, tfs = terms[keep], rows[keep], tfs[keep]
        order = np.argsort(terms, kind="stable")
        self.post_rows = rows[order].astype(np.int32)
        self.post_tf = tfs[order].astype(np.float64)
        self.ptr = np.zeros(len(self.terms) + 1, np.int64)
        np.cumsum(np.bincount(terms, minlength=len(self.terms)), out=self.ptr[1:])
        self.delta, self.delta_size = {}, 0

    # --- queries --------------------------------------------------------------------------------
    def _postings(self, term_id: int) -> tuple[np.ndarray, np.ndarray]:
        """Rows and term frequencies of a term: its CSR slice (if it had one at the last merge) + delta."""
        if term_id + 1 < len(self.ptr):
            start, end = self.ptr[term_id], self.ptr[term_id + 1]
            rows, tfs = self.post_rows[start:end], self.post_tf[start:end]
        else:
            rows, tfs = np.zeros(0, np.int32), np.zeros(0)
        extra = self.delta.get(term_id)
        if extra is None:
            return rows, tfs
        return (np.concatenate([rows, np.array(extra[0], np.int32)]),
                np.concatenate([tfs, np.array(extra[1], np.float64)]))

    def scores(self, terms: Sequence[str], audiences: Iterable[int] | None = None,
               member_projects: Sequence[int] = (), withheld: Sequence[int] = ()) -> np.ndarray:
        """FTS5's bm25 magnitude (positive, higher is better) of every row, with N, n(t) and avgdl over
        the rows the caller sees: those of ``audiences`` (None: every row) and, under the project rule, the
        task rows of ``member_projects`` but the ``withheld`` chunk ids (tasks the tracker restricts); 0 where no
        term matches or the row is not theirs."""
        n = self.n
        scores = np.zeros(n)
        allowed = None if audiences is None else np.fromiter(set(audiences), np.int64)
        theirs_rows = None  # the caller's rows as a mask, when the audience counters cannot say it
        if allowed is None:
            live, tokens = len(self.where), self.total_tokens
        elif member_projects:
            theirs_rows = self._theirs(np.arange(n), allowed, member_projects, withheld) & self.alive[:n]
            live, tokens = int(theirs_rows.sum()), int(self.doclen[:n][theirs_rows].sum())
        else:
            live = sum(self.audience_rows[int(a)] for a in allowed)
            tokens = sum(self.audience_tokens[int(a)] for a in allowed)
        if not live:
            return scores
        if allowed is None and self._norm is None:
            self._norm = K1 * ((1 - B) + (B * self.doclen[:n]) / (tokens / live))
        for term in terms:  # in query order: the float sums then match FTS5's to the last bit
            term_id = self.terms.get(term)
            if term_id is None:
                continue
            rows, tfs = self._postings(term_id)
            keep = self.alive[rows] if self.dead else None
            if allowed is not None:
                theirs = np.isin(self.audience[rows], allowed) if theirs_rows is None else theirs_rows[rows]
                keep = theirs if keep is None else keep & theirs
            if keep is not None:
                rows, tfs = rows[keep], tfs[keep]
            if not len(rows):
                continue
            idf = math.log((live - len(rows) + 0.5) / (len(rows) + 0.5))
            norm = self._norm[rows] if allowed is None else K1 * ((1 - B) + (B * self.doclen[rows]) / (tokens / live))
            scores[rows] += (idf if idf > 0.0 else MIN_IDF) * ((tfs * (K1 + 1.0)) / (tfs + norm))
        return scores

    def _theirs(self, rows: np.ndarray, allowed: np.ndarray, member_projects: Sequence[int],
                withheld: Sequence[int] = ()) -> np.ndarray:
        """Rows of the caller's audiences, or task rows of a project they are a member of (the project rule) that
        are not ``withheld`` (chunks of tasks the tracker restricts)."""
        mask = np.isin(self.audience[rows], allowed)
        if member_projects:
            members = (self.types[rows] == TASK_CODE) & np.isin(self.projects[rows],
                                                                np.asarray(member_projects, np.int64))
            if len(withheld):
                members &= ~np.isin(self.ids[rows], np.asarray(withheld, np.int64))
            mask |= members
        return mask

    def query_terms(self, words: Sequence[str], limit: int) -> list[str]:
        """The terms of a query's words as this index stores them (stemmed or not)."""
        return query_terms(words, limit, self.stemmed)

    def search(self, terms: Sequence[str], k: int, audiences: Iterable[int] | None, scope: Scope,
               member_projects: Sequence[int] = (), withheld: Sequence[int] = ()) -> LexicalHits:
        """Top-k visible chunks matching any term, by (bm25 over what the caller sees, chunk id); ``terms``
        from query_terms()."""
        audiences = None if audiences is None else tuple(audiences)  # read twice: statistics, then the mask
        scores = self.scores(terms, audiences, member_projects, withheld)
        rows = np.flatnonzero(scores)
        rows = rows[self._visible(rows, audiences, scope, member_projects, withheld)]
        if not len(rows) or k <= 0:
            return LexicalHits(np.zeros(0, np.int64), np.zeros(0))
        best = best_k(self.ids[rows], -scores[rows], k)
        return LexicalHits(best.chunk_ids, best.distances)

    def _visible(self, rows: np.ndarray, audiences: Iterable[int] | None, scope: Scope,
                 member_projects: Sequence[int] = (), withheld: Sequence[int] = ()) -> np.ndarray:
        """The access rule and the scope as a mask over ``rows`` (before any top-k)."""
        mask = np.ones(len(rows), bool)
        if audiences is not None:
            mask &= self._theirs(rows, np.fromiter(audiences, np.int64), member_projects, withheld)
        scoped = ScopeCodes.of(scope, self.doc_type_codes).mask(
            self.types[rows], self.projects[rows], self.sprints[rows], self.doc_types[rows])
        if scoped is not None:
            mask &= scoped
        return mask
