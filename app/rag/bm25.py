"""Okapi BM25 as FTS5's bm25() computes it (fts5_aux.c), over statistics the caller hands in. Pure: no I/O.

Both engines rank their lexical arm with this formula and its constants, and both compute its statistics
over the chunks the asker may see (DESIGN.md, Trust model): the number of those chunks N, how many of them
hold each term n(t), and their mean length. A chunk the asker cannot see then moves neither their scores
nor their order. SQLite's in-memory index (app/engines/sqlite/lexical_index.py) vectorises the same sums;
Oracle's text arm re-ranks the candidates Oracle Text found with ``rank`` (app/engines/oracle/search.py).

  idf(t) = ln((N - n(t) + 0.5) / (n(t) + 0.5)), clamped to 1e-6 when <= 0 (a term in over half the rows),
  bm25  = sum over the query's terms, in order, of idf * tf*(k1+1) / (tf + k1*(1 - b + b*D/avgdl)).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

K1, B = 1.2, 0.75  # fts5_aux.c's constants
MIN_IDF = 1e-6  # fts5_aux.c clamps idf <= 0 to this

Key = TypeVar("Key", bound=Hashable)


@dataclass(frozen=True)
class Statistics:
    """The asker's own term statistics: ``rows`` chunks they may see, their ``mean_length`` (in the unit the
    ranked lengths use) and, per term, how many of those chunks hold it."""

    rows: int
    mean_length: float
    holding: Mapping[str, int]

    def idf(self, term: str) -> float:
        n = self.holding.get(term, 0)
        value = math.log((self.rows - n + 0.5) / (n + 0.5))
        return value if value > 0.0 else MIN_IDF


def score(counts: Counter[str], length: float, terms: Sequence[str], stats: Statistics) -> float:
    """One chunk's bm25 magnitude (higher is better): ``counts`` its term frequencies, ``length`` its size."""
    norm = K1 * ((1 - B) + B * length / stats.mean_length) if stats.mean_length > 0 else K1
    total = 0.0
    for term in terms:  # a term repeated in the query counts each time, as in FTS5
        tf = counts.get(term, 0)
        if tf:
            total += stats.idf(term) * (tf * (K1 + 1.0)) / (tf + norm)
    return total


def rank(candidates: Sequence[tuple[Key, str]], terms: Sequence[str], stats: Statistics,
         tokens: Callable[[str], list[str]], length: Callable[[str], float] = len) -> list[Key]:
    """The candidates' keys, best first by (bm25, key); ``tokens`` splits a text into the terms ``terms`` and
    ``stats.holding`` are spelt in, ``length`` measures it in ``stats.mean_length``'s unit."""
    if stats.rows <= 0:
        return sorted(key for key, _ in candidates)
    scored = [(-score(Counter(tokens(text)), length(text), terms, stats), key) for key, text in candidates]
    return [key for _, key in sorted(scored)]
