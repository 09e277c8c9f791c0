"""An exact, in-memory cosine index mirrored from RAG_VEC, partitioned by audience.

Why not vec0's KNN: at 100k x 384 it takes ~42 ms unfiltered against ~8 ms for a numpy scan.
vec0 stays the durable, dimension-checked store; this index is a cache of it.

Why partitions: the access rule is ``AUDIENCE IN (0, me)`` for a developer, so keeping each
audience's vectors in their own contiguous matrix lets a developer's query scan only those
rows (no gather of a sub-matrix), while a manager's scans every partition. Scope filters are
boolean masks applied *before* the top-k, so nothing visible is lost to the limit.

Freshness: RAG_CHUNK triggers append every changed CHUNK_ID to RAG_CHUNK_CHANGES (whatever
process wrote it), so ``refresh`` reads the ids past the last SEQ it saw and re-reads just those.
RAG_META.epoch (bumped by wipe) and pruned_through force a full reload.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import apsw
import numpy as np
from threadpoolctl import threadpool_limits

from app.domain import SOURCE_TYPES, Scope
from app.engines.sqlite import statements as sql
from app.engines.sqlite.change_log import FollowsChangeLog

TYPE_CODE = {name: code for code, name in enumerate(SOURCE_TYPES)}
NULL_ID = -1  # PROJECT_ID / SPRINT_ID / doc type code of a chunk that has none (real ones are >= 0)
DOC_CODE = TYPE_CODE["doc"]
TASK_CODE = TYPE_CODE["task"]
_INITIAL_CAPACITY = 64
_COMPACT_RATIO = 0.25  # compact a partition when this share of its rows are tombstones


@dataclass(frozen=True)
class Candidates:
    """Best rows of one search, sorted by (distance, chunk id)."""

    chunk_ids: np.ndarray
    distances: np.ndarray


@dataclass(frozen=True)
class ScopeCodes:
    """A scope with its source and doc types as the small integer codes the in-memory columns hold;
    shared by the vector and the lexical index so both narrow a search by the same rule."""

    scope: Scope
    types: np.ndarray | None
    doc_types: np.ndarray | None

    @classmethod
    def of(cls, scope: Scope, doc_type_codes: dict[str, int]) -> ScopeCodes:
        types = None if scope.source_types is None else np.array([TYPE_CODE[t] for t in scope.source_types], np.int8)
        # A doc type no chunk has yet has no code: it matches nothing (an empty list keeps non-doc chunks).
        doc_types = (None if scope.doc_types is None
                     else np.array([doc_type_codes[t] for t in scope.doc_types if t in doc_type_codes], np.int32))
        return cls(scope, types, doc_types)

    def mask(self, types: np.ndarray, projects: np.ndarray, sprints: np.ndarray,
             doc_types: np.ndarray) -> np.ndarray | None:
        """The scope over parallel columns of chunk attributes; None when it sets no condition."""
        mask = None
        if self.scope.project != "all":
            wanted = NULL_ID if self.scope.project == "none" else int(self.scope.project)
            mask = _and(mask, projects == wanted)
        if self.scope.sprint_id is not None:
            mask = _and(mask, sprints == int(self.scope.sprint_id))
        if self.types is not None:
            mask = _and(mask, np.isin(types, self.types))
        if self.doc_types is not None:  # narrows document chunks only
            mask = _and(mask, (types != DOC_CODE) | np.isin(doc_types, self.doc_types))
        return mask


class _Partition:
    """The vectors of one audience, appended in place; deletes are tombstones until compaction."""

    def __init__(self, dim: int) -> None:
        self.dim = dim
        self.n = 0
        self.dead = 0
        self._alloc(_INITIAL_CAPACITY)

    def _alloc(self, capacity: int) -> None:
        old = self.__dict__.get("vecs")
        fields = {
            "vecs": np.zeros((capacity, self.dim), np.float32),
            "ids": np.zeros(capacity, np.int64),
            "types": np.zeros(capacity, np.int8),
            "projects": np.full(capacity, NULL_ID, np.int64),
            "sprints": np.full(capacity, NULL_ID, np.int64),
            "doc_types": np.full(capacity, NULL_ID, np.int32),
            "alive": np.zeros(capacity, bool),
        }
        if old is not None:
            for name, array in fields.items():
                array[: self.n] = getattr(self, name)[: self.n]
        self.__dict__.update(fields)

    def append(self, chunk_id: int, vec: np.ndarray, type_code: int, project: int, sprint: int,
               doc_type: int) -> int:
        if self.n == len(self.ids):
            self._alloc(max(_INITIAL_CAPACITY, 2 * self.n))
        row = self.n
        self.vecs[row] = vec
        self.ids[row], self.types[row] = chunk_id, type_code
        self.projects[row], self.sprints[row], self.doc_types[row] = project, sprint, doc_type
        self.alive[row] = True
        self.n += 1
        return row

    def kill(self, row: int) -> None:
        self.alive[row] = False
        self.dead += 1

    def needs_compaction(self) -> bool:
        return self.dead > 32 and self.dead > _COMPACT_RATIO * self.n

    def compact(self) -> dict[int, int]:
        """Drop tombstones; return chunk id -> new row."""
        keep = np.nonzero(self.alive[: self.n])[0]
        for name in ("vecs", "ids", "types", "projects", "sprints", "doc_types", "alive"):
            array = getattr(self, name)
            array[: len(keep)] = array[keep]
        self.alive[len(keep) : self.n] = False
        self.n, self.dead = len(keep), 0
        return {int(cid): row for row, cid in enumerate(self.ids[: self.n])}

    def top(self, query: np.ndarray, k: int, codes: ScopeCodes, members: np.ndarray | None = None,
            withheld: np.ndarray | None = None) -> Candidates | None:
        """The best k rows in scope; with ``members`` (a partition whose audience the caller is not in), only its
        task rows of those projects (the project rule) but not the ``withheld`` chunks (of tasks the tracker
        restricts), masked before the top-k like the scope."""
        n = self.n
        if n == self.dead:
            return None
        mask = self.alive[:n] if self.dead else None
        if members is not None:
            mask = _and(mask, (self.types[:n] == TASK_CODE) & np.isin(self.projects[:n], members))
            if withheld is not None and len(withheld):
                mask = mask & ~np.isin(self.ids[:n], withheld)
        scoped = codes.mask(self.types[:n], self.projects[:n], self.sprints[:n], self.doc_types[:n])
        if scoped is not None:
            mask = _and(mask, scoped)
        if mask is None:
            rows = None
            distances = 1.0 - self.vecs[:n] @ query
        else:
            rows = np.flatnonzero(mask)
            if not len(rows):
                return None
            # Narrow scopes gather few rows; wide ones are cheaper to scan whole and then index.
            if len(rows) < n // 4:
                distances = 1.0 - self.vecs[rows] @ query
            else:
                distances = (1.0 - self.vecs[:n] @ query)[rows]
        ids = self.ids[:n] if rows is None else self.ids[rows]
        return best_k(ids, distances, k)


def _and(mask: np.ndarray | None, other: np.ndarray) -> np.ndarray:
    return other if mask is None else mask & other


def best_k(ids: np.ndarray, distances: np.ndarray, k: int) -> Candidates:
    """Exact top-k by (distance, chunk id): every row tied with the k-th distance competes on id.
    (Any lower-is-better key: the lexical index ranks FTS5's negative bm25 with it.)"""
    if len(distances) > k:
        kth = np.partition(distances, k - 1)[k - 1]
        pick = np.flatnonzero(distances <= kth)
        ids, distances = ids[pick], distances[pick]
    order = np.lexsort((ids, distances))[:k]
    return Candidates(ids[order], distances[order])


class VectorIndex(FollowsChangeLog):
    """Not thread-safe by itself: the engine serialises refresh and search with one lock."""

    def __init__(self, dim: int) -> None:
        self.dim = dim
        self._reset()
        # One BLAS thread for the whole process: a search is many small per-audience products, and with
        # BLAS's own threads beside the server's, a loaded machine stalls on thread hand-offs (100k
        # chunks, 2 cores, 4 busy processes: p50 233 ms with OpenBLAS's default threads, 57 ms with one).
        threadpool_limits(limits=1, user_api="blas")

    def _reset(self) -> None:
        self.partitions: dict[int, _Partition] = {}
        self.where: dict[int, tuple[int, int]] = {}  # chunk id -> (audience, row)
        self.doc_type_codes: dict[str, int] = {}  # DOC_TYPE -> its small integer code in the partitions
        self.epoch: int | None = None
        self.seq = 0

    def __len__(self) -> int:
        return len(self.where)

    # --- freshness (refresh: change_log.FollowsChangeLog) ----------------------------------------
    def _add_changed(self, conn: apsw.Connection, chunk_ids: list[int]) -> None:
        self._load(conn, chunk_ids)

    def _settle(self) -> None:
        for audience in [a for a, p in self.partitions.items() if p.needs_compaction()]:
            for cid, row in self.partitions[audience].compact().items():
                self.where[cid] = (audience, row)

    def _full_load(self, conn: apsw.Connection, epoch: int, max_seq: int) -> None:
        self._reset()
        self._load(conn, None)
        self.epoch, self.seq = epoch, max_seq

    def _load(self, conn: apsw.Connection, ids: Sequence[int] | None) -> None:
        """Add the chunks with these ids (all chunks when None) that exist and have a vector."""
        if ids is not None and not ids:
            return
        binds = () if ids is None else tuple(ids)
        meta = {
            cid: (audience, TYPE_CODE[stype], NULL_ID if project is None else project,
                  NULL_ID if sprint is None else sprint,
                  NULL_ID if doc_type is None else self.doc_type_codes.setdefault(doc_type, len(self.doc_type_codes)))
            for cid, audience, stype, project, sprint, doc_type in conn.execute(sql.index_metadata(ids), binds)
        }
        if not meta:
            return
        for cid, blob in conn.execute(sql.index_vectors(ids), binds):
            info = meta.get(cid)
            if info is None:
                continue
            audience, type_code, project, sprint, doc_type = info
            partition = self.partitions.get(audience)
            if partition is None:
                partition = self.partitions[audience] = _Partition(self.dim)
            row = partition.append(cid, np.frombuffer(blob, np.float32), type_code, project, sprint, doc_type)
            self.where[cid] = (audience, row)

    def _remove(self, chunk_id: int) -> None:
        found = self.where.pop(chunk_id, None)
        if found is not None:
            self.partitions[found[0]].kill(found[1])

    # --- queries --------------------------------------------------------------------------------
    def search(self, query: np.ndarray, k: int, audiences: Iterable[int] | None, scope: Scope,
               member_projects: Sequence[int] = (), withheld: Sequence[int] = ()) -> Candidates:
        """Exact top-k over the given audiences (None: all) under the scope, by (distance, id); with
        ``member_projects`` (the project rule), also the task rows of those projects in every other partition, but
        not the ``withheld`` chunk ids (tasks the tracker restricts: no membership grants them)."""
        query = np.ascontiguousarray(query, dtype=np.float32).reshape(-1)
        if query.shape[0] != self.dim:
            raise ValueError(f"query vector has {query.shape[0]} dimensions, the index {self.dim}")
        codes = ScopeCodes.of(scope, self.doc_type_codes)
        keys = list(self.partitions.keys() if audiences is None else audiences)
        parts = [p.top(query, k, codes)
                 for a in keys if (p := self.partitions.get(a)) is not None]
        if audiences is not None and member_projects:
            members = np.asarray(member_projects, np.int64)
            own = set(keys)
            hidden = np.asarray(withheld, np.int64)
            parts += [p.top(query, k, codes, members, hidden) for a, p in self.partitions.items() if a not in own]
        parts = [c for c in parts if c is not None]
        if not parts:
            return Candidates(np.zeros(0, np.int64), np.zeros(0, np.float32))
        if len(parts) == 1:
            return parts[0]
        return best_k(np.concatenate([c.chunk_ids for c in parts]), np.concatenate([c.distances for c in parts]), k)

    def distances(self, query: np.ndarray, chunk_ids: Iterable[int]) -> dict[int, float]:
        """True cosine distances of specific chunks (the lexical arm's hits)."""
        query = np.asarray(query, dtype=np.float32).reshape(-1)
        out: dict[int, float] = {}
        for cid in chunk_ids:
            found = self.where.get(cid)
            if found is not None:
                audience, row = found
                out[cid] = float(1.0 - self.partitions[audience].vecs[row] @ query)
        return out
