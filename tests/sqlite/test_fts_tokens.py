"""app.rag.fts_tokens reproduces FTS5's unicode61 remove_diacritics 2 tokenizer (with and without
porter): the terms and their positions FTS5 itself stores, read back through fts5vocab."""

from __future__ import annotations

import apsw
import pytest

from app.rag import fts_tokens
from app.rag.porter import stem
from app.rag.unicode61_data import DIACRITIC_RANGES, FOLD_PAIRS, SQLITE_VERSION, TOKEN_RANGES

from .fts_corpus import ENGLISH, demo_texts, random_texts

TOKENIZERS = {False: "unicode61 remove_diacritics 2", True: "porter unicode61 remove_diacritics 2"}


def fts5_terms(texts: list[str], porter: bool) -> dict[int, list[str]]:
    """Each text's terms in position order, as a real FTS5 table stores them."""
    conn = apsw.Connection(":memory:")
    conn.execute(f"CREATE VIRTUAL TABLE t USING fts5(body, tokenize = '{TOKENIZERS[porter]}')")
    conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')")
    with conn:
        conn.executemany("INSERT INTO t (rowid, body) VALUES (?, ?)", list(enumerate(texts)))
    out: dict[int, list[str]] = {i: [] for i in range(len(texts))}
    for term, doc in conn.execute("SELECT term, doc FROM v ORDER BY doc, offset"):
        out[doc].append(term)
    return out


@pytest.mark.parametrize("porter", [False, True], ids=["unicode61", "porter"])
def test_terms_and_positions_match_fts5_on_demo_and_random_text(porter):
    texts = demo_texts() + random_texts(1500)
    expected = fts5_terms(texts, porter)
    mine = {i: fts_tokens.tokenize(text, porter) for i, text in enumerate(texts)}
    assert sum(len(v) for v in expected.values()) > 20_000  # the comparison covers a real vocabulary
    mismatched = [(texts[i], mine[i], expected[i]) for i in expected if mine[i] != expected[i]]
    assert mismatched == []
    vocabulary = {t for terms in mine.values() for t in terms}
    assert any(not t.isascii() for t in vocabulary) and "configuracion" in vocabulary


def test_porter_matches_fts5_on_every_rule_and_its_edges():
    tokenize = apsw.Connection(":memory:").fts5_tokenizer("porter", ["unicode61", "remove_diacritics", "2"])
    words = ENGLISH + [w + s for w in ("connect", "hop", "fil", "agree", "sky", "a", "x") for s in
                       ("", "s", "es", "ies", "ed", "ing", "ational", "ization", "ness", "ful", "ly", "ement")]
    words += ["ab", "abc", "y" * 3, "a" * 64 + "ing", "a" * 61 + "ing", "niñoing", "caféed"]
    for word in words:
        expected = [t[2] for t in tokenize(word.encode(), apsw.FTS5_TOKENIZE_DOCUMENT, None)]
        assert [stem(t) for t in fts_tokens.tokenize(word)] == expected, word


def test_tables_come_from_this_sqlite_and_folding_keeps_token_classes():
    """tokenize() folds whole texts before splitting: that is only equal to FTS5's per-token folding
    because a token character folds to a token character, folding is idempotent and only
    diacritics are dropped. Regenerate with scripts/gen_unicode61.py after a SQLite upgrade."""
    assert SQLITE_VERSION == apsw.sqlite_lib_version()

    def member(cp, ranges):
        return any(a <= cp <= b for a, b in ranges)

    folds = dict(zip(FOLD_PAIRS[::2], FOLD_PAIRS[1::2]))
    for cp, to in folds.items():
        if to == 0:
            assert member(cp, DIACRITIC_RANGES), cp
        else:
            assert member(cp, TOKEN_RANGES) and member(to, TOKEN_RANGES) and folds.get(to, to) == to, cp


def test_query_terms_split_words_into_tokens_and_cap_the_count():
    assert fts_tokens.query_terms(["Configuración", "foo_bar", "ÉCOLE"], 64) == ["configuracion", "foo", "bar", "ecole"]
    assert fts_tokens.query_terms(["running"] * 80, 64, porter=True) == ["run"] * 64
    assert fts_tokens.query_terms(["_", "—"], 64) == []
