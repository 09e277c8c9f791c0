"""The pure rules both engines share: which words the lexical arm searches for, and how arms fuse."""

from __future__ import annotations

import pytest

from app.engines.oracle.search import text_query
from app.engines.sqlite.search import fts_query
from app.rag.fusion import fuse_by_source
from app.rag.lexical import MAX_TERMS, query_terms


@pytest.mark.parametrize("text, terms", [
    ("Who is assigned to the login bug?", ["assigned", "login", "bug"]),
    ("¿Quién está asignado al bug de facturación?", ["asignado", "bug", "facturación"]),
    ("it's what's don't", ["don", "t"]),  # stop words tested on the whole word, then on its parts
    ("XK-42 snake_case a_b", ["XK", "42", "snake", "case", "b"]),  # '-' and '_' split; 'a' is a stop word
    ("0-dimensional biomaterials", ["0", "dimensional", "biomaterials"]),
    ("near NEAR Near about", ["near"]),  # once, case-insensitively; 'about' is an English stop word
    ('"quoted" (paren) {brace} [x] %pct* ^caret', ["quoted", "paren", "brace", "x", "pct", "caret"]),
    ("", []),
    (None, []),
    ("the and of is", []),
    ("!!! ??? ---", []),
])
def test_query_terms(text, terms):
    assert query_terms(text) == terms


def test_query_terms_caps_the_count_and_drops_tokens_over_255_bytes():
    assert query_terms(" ".join(f"t{i}" for i in range(100))) == [f"t{i}" for i in range(MAX_TERMS)]
    assert query_terms("a" * 255 + " " + "b" * 256 + " ok") == ["a" * 255, "ok"]
    assert query_terms("é" * 128 + " ok") == ["ok"]  # 256 bytes in UTF-8, though 128 characters


def test_both_engines_ask_for_the_same_terms():
    text = 'Rotate the XK-42 key; NEAR "about" minus_x'
    terms = ["Rotate", "XK", "42", "key", "NEAR", "minus", "x"]
    assert query_terms(text) == terms
    assert fts_query(text) == " OR ".join(f'"{t}"' for t in terms)
    assert text_query(text) == " ACCUM ".join(f"{{{t}}}" for t in terms)
    assert fts_query("the of and") is None and text_query("the of and") == ""


SOURCE = {"a1": "A", "a2": "A", "a3": "A", "b1": "B", "c1": "C", "d1": "D"}


def test_fusion_ranks_sources_by_their_best_chunk_in_each_arm():
    # Each arm ranks document A first (through different chunks) and B second: A wins, although
    # chunk-level RRF would put b1 (second in both arms) above a1 and a2 (first in one arm each).
    vector = ["a1", "b1", "c1"]
    lexical = ["a2", "b1", "a3"]
    fused = fuse_by_source([vector, lexical], SOURCE.__getitem__)
    assert [item for item, _ in fused] == ["a1", "b1", "c1", "a2", "a3"]  # best chunks, then the rest
    assert fused[0][1] == pytest.approx(2 / 61) and fused[1][1] == pytest.approx(2 / 62)
    assert fused[2][1] == pytest.approx(1 / 63)  # C: third in the vector arm only
    assert fused[3][1] == pytest.approx(1 / 63) and fused[4][1] == pytest.approx(1 / 63)  # capped at C's score


def test_fusion_breaks_a_tie_between_sources_by_their_best_chunks():
    fused = fuse_by_source([["a1", "b1"], ["b1", "a2"]], SOURCE.__getitem__)
    assert [item for item, _ in fused][:2] == ["b1", "a1"]  # equal sources; b1 is in both arms


def test_fusion_scores_never_increase_and_later_chunks_follow_every_best_chunk():
    vector = ["a1", "a2", "a3", "b1", "c1", "d1"]
    lexical = ["a2", "a1", "d1"]
    fused = fuse_by_source([vector, lexical], SOURCE.__getitem__)
    scores = [score for _, score in fused]
    assert scores == sorted(scores, reverse=True)
    assert [item for item, _ in fused][:4] == ["a1", "d1", "b1", "c1"]  # one chunk per source first
    assert [item for item, _ in fused][4:] == ["a2", "a3"]


def test_fusion_of_one_arm_keeps_its_order_of_sources():
    fused = fuse_by_source([["c1", "a1", "b1", "a2"]], SOURCE.__getitem__)
    assert [item for item, _ in fused] == ["c1", "a1", "b1", "a2"]
    assert fuse_by_source([[], []], SOURCE.__getitem__) == [] and fuse_by_source([], SOURCE.__getitem__) == []
