"""Reciprocal rank fusion of ranked id lists (Cormack et al. 2009)."""

from __future__ import annotations

from collections.abc import Hashable, Sequence

RRF_K = 60


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
