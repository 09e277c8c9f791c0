"""Retrieval metrics against hand-computed values (BEIR conventions: linear graded gain)."""

from __future__ import annotations

import math

import pytest

from app.rag.retrieval_metrics import document_ranking, mrr_at_k, ndcg_at_k, percentile, recall_at_k


def test_graded_ndcg_matches_hand_computation():
    relevant = {"a": 2, "b": 1, "c": 0}
    ranked = ["x", "b", "a"]  # b (grade 1) at rank 2, a (grade 2) at rank 3
    dcg = 1 / math.log2(3) + 2 / math.log2(4)
    idcg = 2 / math.log2(2) + 1 / math.log2(3)
    assert ndcg_at_k(ranked, relevant, 10) == pytest.approx(dcg / idcg)
    assert ndcg_at_k(["a", "b"], relevant, 10) == pytest.approx(1.0)
    # grade matters: the worse order loses to the ideal one
    assert ndcg_at_k(["b", "a"], relevant, 10) < ndcg_at_k(["a", "b"], relevant, 10)


def test_ndcg_cut_at_k_and_grade_zero_is_not_relevant():
    relevant = {"a": 1, "c": 0}
    assert ndcg_at_k(["c", "x", "a"], relevant, 2) == 0.0
    assert ndcg_at_k(["c", "a"], relevant, 2) == pytest.approx(1 / math.log2(3))


def test_ties_in_grade_give_the_same_score_in_either_order():
    relevant = {"a": 1, "b": 1}
    assert ndcg_at_k(["a", "b"], relevant, 10) == ndcg_at_k(["b", "a"], relevant, 10) == pytest.approx(1.0)
    assert ndcg_at_k(["x", "a"], relevant, 10) == ndcg_at_k(["x", "b"], relevant, 10)


def test_query_with_no_relevant_document_retrieved_scores_zero():
    relevant = {"a": 2}
    ranked = ["x", "y", "z"]
    assert ndcg_at_k(ranked, relevant, 10) == 0.0
    assert recall_at_k(ranked, relevant, 10) == 0.0
    assert mrr_at_k(ranked, relevant, 10) == 0.0
    assert ndcg_at_k([], relevant, 10) == 0.0


def test_recall_at_k_counts_relevant_documents_in_the_top_k():
    relevant = {"a": 1, "b": 2, "c": 1, "d": 0}
    ranked = ["a", "x", "d", "b", "c"]
    assert recall_at_k(ranked, relevant, 2) == pytest.approx(1 / 3)
    assert recall_at_k(ranked, relevant, 4) == pytest.approx(2 / 3)
    assert recall_at_k(ranked, relevant, 100) == pytest.approx(1.0)
    assert recall_at_k(ranked, {"d": 0}, 10) == 0.0  # nothing judged relevant: no credit, no division by 0


def test_mrr_at_k_is_the_reciprocal_rank_of_the_first_relevant_document():
    relevant = {"b": 1, "c": 3}
    assert mrr_at_k(["x", "b", "c"], relevant, 10) == pytest.approx(0.5)
    assert mrr_at_k(["x", "y", "c"], relevant, 10) == pytest.approx(1 / 3)
    assert mrr_at_k(["x", "y", "c"], relevant, 2) == 0.0
    assert mrr_at_k(["x", "y", "d"], {"d": 0}, 10) == 0.0


def test_document_ranking_keeps_each_document_at_its_best_chunk():
    assert document_ranking(["d2", "d1", "d2", "d3", "d1"]) == ["d2", "d1", "d3"]


def test_percentile_interpolates_like_numpy():
    values = [10.0, 1.0, 4.0, 3.0, 2.0]
    assert percentile(values, 50) == 3.0
    assert percentile(values, 95) == pytest.approx(8.8)  # numpy.percentile([1,2,3,4,10], 95)
    assert percentile([], 50) == 0.0
