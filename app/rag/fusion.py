"""Fusion of ranked chunk lists: reciprocal rank fusion (Cormack et al. 2009) and the source-level
fusion both engines' hybrid and lexical modes use. Pure: no I/O."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import TypeVar

RRF_K = 60
Item = TypeVar("Item", bound=Hashable)


def candidate_depth(k: int) -> int:
    """How many candidates each arm of hybrid search ranks before fusion, on every engine.

    One rule for both engines so the same data gives the same fused answer; 50 is the floor the
    SciFact benchmark (scripts/bench_quality.py) was measured with.
    """
    return max(50, 4 * k)


def reciprocal_rank_fusion(*rankings: Sequence[Hashable], k: int = RRF_K) -> list[tuple[Hashable, float]]:
    """Fuse rankings (best first) into (id, score) pairs, best first; ties keep first-seen order."""
    scores: dict[Hashable, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
    return sorted(scores.items(), key=lambda pair: -pair[1])


def fuse_by_source(rankings: Sequence[Sequence[Item]], source_of: Callable[[Item], Hashable],
                   k: int = RRF_K) -> list[tuple[Item, float]]:
    """Fuse chunk rankings (best first, one per arm) at the level of their sources → (chunk, score).

    Chunk-level RRF lets a long document's several chunks split its votes and crowd out other
    sources; the question is which *task or document* answers, so each arm ranks sources by their
    best chunk there, and the sources' RRF decides the order. The result lists each source's best
    chunk (highest chunk-level RRF) in source order first, then every other candidate chunk by its
    chunk-level RRF. Scores never increase down the list: a later chunk's score is its own RRF,
    capped at the last best chunk's. Tied sources go in the order of their best chunks' RRF (then
    first seen). One arm gives that arm's order of sources, so lexical mode ranks like hybrid.
    """
    source_score: dict[Hashable, float] = {}
    chunk_score = dict(reciprocal_rank_fusion(*rankings, k=k))
    for ranking in rankings:
        rank_of: dict[Hashable, int] = {}
        for item in ranking:
            rank_of.setdefault(source_of(item), len(rank_of) + 1)
        for source, rank in rank_of.items():
            source_score[source] = source_score.get(source, 0.0) + 1.0 / (k + rank)
    best: dict[Hashable, Item] = {}
    for item in chunk_score:  # best chunk first, so the first one seen per source is its best
        best.setdefault(source_of(item), item)  # type: ignore[arg-type]
    ordered = sorted(best, key=lambda source: -source_score[source])
    fused: list[tuple[Item, float]] = [(best[s], source_score[s]) for s in ordered]
    floor = fused[-1][1] if fused else 0.0
    chosen = set(best.values())
    fused += [(item, min(score, floor)) for item, score in chunk_score.items()  # type: ignore[misc]
              if item not in chosen]
    return fused
