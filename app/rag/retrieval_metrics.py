"""Retrieval quality metrics over document-level rankings (pure functions, BEIR conventions).

``relevant`` maps a document id to its graded judgment; a grade ≤ 0 is not relevant. nDCG uses
the linear graded gain of BEIR/pytrec_eval (gain = grade, discount log2(rank + 1)).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Sequence


def document_ranking(doc_ids: Iterable[Hashable]) -> list[Hashable]:
    """Chunk hits (best first, mapped to their document) → documents ranked at their best chunk."""
    return list(dict.fromkeys(doc_ids))


def ndcg_at_k(ranked: Sequence[Hashable], relevant: dict[Hashable, int], k: int) -> float:
    dcg = sum(max(relevant.get(doc, 0), 0) / math.log2(rank + 2) for rank, doc in enumerate(ranked[:k]))
    ideal = sorted((grade for grade in relevant.values() if grade > 0), reverse=True)[:k]
    idcg = sum(grade / math.log2(rank + 2) for rank, grade in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def recall_at_k(ranked: Sequence[Hashable], relevant: dict[Hashable, int], k: int) -> float:
    wanted = {doc for doc, grade in relevant.items() if grade > 0}
    if not wanted:
        return 0.0
    return len(wanted.intersection(ranked[:k])) / len(wanted)


def mrr_at_k(ranked: Sequence[Hashable], relevant: dict[Hashable, int], k: int) -> float:
    for rank, doc in enumerate(ranked[:k], start=1):
        if relevant.get(doc, 0) > 0:
            return 1.0 / rank
    return 0.0


def percentile(values: Sequence[float], p: float) -> float:
    """Linear-interpolated percentile (numpy's default method); 0.0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    position = (len(ordered) - 1) * p / 100
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)
