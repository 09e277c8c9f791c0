"""Reciprocal rank fusion of ranked id lists (Cormack et al. 2009): both engines' hybrid mode. Pure: no I/O."""

from __future__ import annotations

from collections.abc import Hashable, Sequence

# Full SciFact, vector + porter BM25 (issue 9 note): k = 60 (the paper's) 0.716 nDCG@10, 20 0.725,
# 10 0.727, 5 0.727 at the eval's depth, and 0.715 -> 0.725 at depth 50 (top_k 8). A small k trusts
# each arm's first ranks, where both arms are precise. Fusing per source (a document ranked by its
# best chunk in each arm) measured 0.004-0.005 lower at every k, so fusion stays per chunk.
RRF_K = 10


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


def ranks(ranking: Sequence[Hashable]) -> dict[Hashable, int]:
    """Each item's 1-based rank in one arm's ranking (its first position)."""
    out: dict[Hashable, int] = {}
    for rank, item in enumerate(ranking, start=1):
        out.setdefault(item, rank)
    return out
