"""The text arm's BM25 statistics, cheap and still the asker's own (REVIEW-4 W1).

Every lexical or hybrid search needs N and the mean length of the chunks the asker may see, and n(t) for each
query term, all under the access rule (a hidden chunk must move no ranking: tests/conformance/
test_lexical_privacy.py). Computed per search they read every visible chunk's CONTENT (``AVG(LENGTH(CONTENT))``)
and every match of each term. Now:

* N and the mean length come from ``RAG_CHUNK.CONTENT_CHARS`` (V20, written by both upsert forms) through
  ``RAG_CHUNK_STATS_IDX (SOURCE_TYPE, OWNER_EMPLOYEE_ID, CONTENT_CHARS)``: every column the access predicate and the
  aggregate read is in that index and SOURCE_TYPE is NOT NULL, so the count can be an index fast full scan that
  never visits the table (docs/ORACLE.md, "The text arm's statistics");
* both, and each n(t), are cached per visibility class (a manager sees every chunk: one class; a developer's
  visible set is keyed by their id) and per (class, term), bounded in entries;
* a write through this engine that can change a chunk or who sees it (a record write, whose triggers move chunks
  at once; an indexing transaction; an erasure; a wipe; a migration) invalidates the whole cache after it commits,
  so within one process the statistics are exact: an entry is kept only under the generation it was read in. A
  write by another process (a separate worker, ``ragctl import``) is seen after at most ``TTL_S``.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence

TTL_S = 10.0  # another process's writes reach the cached statistics within this
MAX_TERMS = 4096  # (class, term) counts kept, least recently used dropped first


class TextStatisticsCache:
    """Thread-safe; ``clock`` is injectable so tests need not sleep."""

    def __init__(self, ttl_s: float = TTL_S, max_terms: int = MAX_TERMS,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.ttl_s, self.max_terms, self.clock = ttl_s, max_terms, clock
        self._lock = threading.Lock()
        self._generation = 0
        self._totals: dict[Hashable, tuple[int, float, int, float]] = {}  # class -> rows, mean, generation, at
        self._terms: OrderedDict[tuple[Hashable, str], tuple[int, int, float]] = OrderedDict()
        self.hits = self.misses = 0

    def generation(self) -> int:
        """Read before computing a value: ``put`` keeps it only if no write committed meanwhile."""
        with self._lock:
            return self._generation

    def invalidate(self) -> None:
        """A write that may change a chunk or who sees it has committed."""
        with self._lock:
            self._generation += 1
            self._totals.clear()
            self._terms.clear()

    def totals(self, visibility: Hashable) -> tuple[int, float] | None:
        with self._lock:
            entry = self._totals.get(visibility)
            if entry is None or not self._fresh(entry[2], entry[3]):
                self.misses += 1
                return None
            self.hits += 1
            return entry[0], entry[1]

    def put_totals(self, visibility: Hashable, generation: int, rows: int, mean_length: float) -> None:
        with self._lock:
            if generation == self._generation:
                self._totals[visibility] = (rows, mean_length, generation, self.clock())

    def terms(self, visibility: Hashable, terms: Sequence[str]) -> tuple[dict[str, int], list[str]]:
        """The cached n(t) of ``terms`` and the terms still to count."""
        found: dict[str, int] = {}
        missing: list[str] = []
        with self._lock:
            for term in terms:
                entry = self._terms.get((visibility, term))
                if entry is not None and self._fresh(entry[1], entry[2]):
                    self._terms.move_to_end((visibility, term))
                    found[term] = entry[0]
                    self.hits += 1
                else:
                    missing.append(term)
                    self.misses += 1
        return found, missing

    def put_term(self, visibility: Hashable, generation: int, term: str, rows: int) -> None:
        with self._lock:
            if generation != self._generation:
                return
            self._terms[(visibility, term)] = (rows, generation, self.clock())
            self._terms.move_to_end((visibility, term))
            while len(self._terms) > self.max_terms:
                self._terms.popitem(last=False)

    def _fresh(self, generation: int, at: float) -> bool:
        return generation == self._generation and self.clock() - at < self.ttl_s
