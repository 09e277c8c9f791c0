"""The pure rules both engines share: which words the lexical arm searches for, and how arms fuse."""

from __future__ import annotations

import pytest

from app.engines.oracle.search import text_query
from app.engines.sqlite.lexical_index import LexicalIndex
from app.rag.fusion import RRF_K, reciprocal_rank_fusion
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
    # SQLite: the in-memory BM25 index stores FTS5's tokens (lower-cased; stemmed only with porter)
    sqlite_terms = LexicalIndex(porter=False).query_terms(query_terms(text), MAX_TERMS)
    assert sqlite_terms == [t.lower() for t in terms]
    assert text_query(text) == " ACCUM ".join(f"{{{t}}}" for t in terms)
    assert query_terms("the of and") == [] and text_query("the of and") == ""


def test_rrf_with_one_arm_keeps_its_order_and_scores_never_increase():
    fused = reciprocal_rank_fusion(["c", "a", "b"])
    assert [item for item, _ in fused] == ["c", "a", "b"]
    assert [score for _, score in fused] == [1 / (RRF_K + r) for r in (1, 2, 3)]
    assert reciprocal_rank_fusion([], []) == [] and reciprocal_rank_fusion() == []


def test_a_long_multibyte_question_stays_a_short_oracle_text_bind():
    """32 distinct 250-byte CJK words would make an 8,000-byte CONTAINS query: the byte budget keeps
    Oracle's '{t} ACCUM {t}' bind under 4,000 bytes, and SQLite asks for the same terms."""
    from app.engines.oracle.search import text_query
    from app.rag.lexical import MAX_QUERY_BYTES, query_terms

    words = [chr(0x20000 + i) * 62 for i in range(40)]  # 62 supplementary-plane characters: 248 bytes each
    question = " ".join(words)
    terms = query_terms(question)
    assert 0 < len(terms) < 32 and terms == words[:len(terms)]
    assert len(text_query(question).encode("utf-8")) <= MAX_QUERY_BYTES < 4000
