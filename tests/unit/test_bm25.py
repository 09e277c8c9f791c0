"""app/rag/bm25.py is FTS5's bm25(): over an FTS5 table of some texts, the pure formula fed with those texts'
own statistics gives the same scores (1e-9 relative) and the same order — the formula Oracle's
text arm re-ranks its candidates with, from the asker's visible counts."""

from __future__ import annotations

import random
from collections import Counter

import apsw
import pytest

from app.rag import bm25
from app.rag.fts_tokens import tokenize

WORDS = "layoffs picnic budget audit kiosk pallet ferry quorum mosaic lantern harbor the a of".split()


def corpus(seed: int, n: int) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 30))) for _ in range(n)]


def statistics(texts: list[str], terms: list[str]) -> bm25.Statistics:
    tokens = [tokenize(t) for t in texts]
    return bm25.Statistics(len(texts), sum(map(len, tokens)) / len(texts),
                           {t: sum(1 for toks in tokens if t in toks) for t in terms})


@pytest.mark.parametrize("seed", range(5))
def test_scores_and_order_equal_fts5(seed):
    texts = corpus(seed, 60)
    conn = apsw.Connection(":memory:")
    conn.execute("CREATE VIRTUAL TABLE T USING fts5(C, tokenize = 'unicode61 remove_diacritics 2')")
    for i, text in enumerate(texts, start=1):
        conn.execute("INSERT INTO T (rowid, C) VALUES (?, ?)", (i, text))
    rng = random.Random(seed)
    for _ in range(20):
        terms = [rng.choice(WORDS) for _ in range(rng.randint(1, 4))]
        match = " OR ".join(f'"{t}"' for t in terms)
        expected = conn.execute("SELECT rowid, -bm25(T) FROM T WHERE T MATCH ? ORDER BY bm25(T), rowid",
                                (match,)).fetchall()
        stats = statistics(texts, terms)
        for rowid, score in expected:
            tokens = tokenize(texts[rowid - 1])
            assert bm25.score(Counter(tokens), len(tokens), terms, stats) == pytest.approx(score, rel=1e-9)
        matching = [(i, t) for i, t in enumerate(texts, start=1) if set(tokenize(t)) & set(terms)]
        ranked = bm25.rank(matching, terms, stats, tokenize, length=lambda t: len(tokenize(t)))
        fts5 = dict(expected)
        assert sorted(ranked) == sorted(fts5)
        # FTS5's order, up to ties that differ only in the last bits of two float sums
        assert all(fts5[a] >= fts5[b] * (1 - 1e-9) for a, b in zip(ranked, ranked[1:]))


def test_a_term_in_more_than_half_the_rows_weighs_almost_nothing_and_nothing_visible_ranks_by_key():
    stats = bm25.Statistics(10, 5.0, {"common": 9, "rare": 1})
    assert stats.idf("common") == bm25.MIN_IDF and stats.idf("rare") > 1
    assert bm25.rank([(2, "x"), (1, "y")], ["rare"], bm25.Statistics(0, 0.0, {}), str.split) == [1, 2]
