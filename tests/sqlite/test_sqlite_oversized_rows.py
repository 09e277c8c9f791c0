"""A source row written past the API's limits by another client (straight into the table) is
indexed up to the cap, logged, and does not hold up the rows queued behind it."""

from __future__ import annotations

import logging

from app.rag.chunking import MAX_INDEXED_CHARS
from tests.support import document, drain_all, peek_queue

INTRO = "Intro: the vendor dump follows."


def test_an_oversized_row_is_indexed_up_to_the_cap_and_the_queue_moves_on(sqlite_engine, caplog):
    e = sqlite_engine
    # 3,000,000 characters: 30x the API's limit, as one unbroken "word" (a pasted blob).
    e.conn.execute("INSERT INTO DOCUMENTS (TITLE, BODY, DOC_TYPE) VALUES (?, ?, 'WIKI')",
                   ("Vendor dump", f"{INTRO}\n\n" + "q" * 3_000_000))
    big = e.conn.execute("SELECT DOCUMENT_ID FROM DOCUMENTS WHERE TITLE = 'Vendor dump'").fetchone()[0]
    small = document(e, "Runbook", "Restart the worker when the queue stalls.")

    with caplog.at_level(logging.WARNING, logger="app.services.indexing"):
        result = drain_all(e)

    assert result.failed == 0 and peek_queue(e) == []
    contents = [c for (c,) in e.conn.execute(
        "SELECT CONTENT FROM RAG_CHUNK WHERE SOURCE_TYPE = 'doc' AND SOURCE_ID = ? ORDER BY CHUNK_IX", (big,))]
    assert contents[0] == f"[DOC #{big}] Vendor dump\n{INTRO}"
    assert all(c.startswith(f"[DOC #{big}] Vendor dump\n") for c in contents)
    assert "".join(c.split("\n", 1)[1] for c in contents[1:]) == "q" * (MAX_INDEXED_CHARS - len(INTRO))
    assert f"doc #{big}: indexed its first {MAX_INDEXED_CHARS} characters" in caplog.text
    assert e.conn.execute("SELECT CONTENT FROM RAG_CHUNK WHERE SOURCE_TYPE = 'doc' AND SOURCE_ID = ?",
                          (small,)).fetchall() == [(f"[DOC #{small}] Runbook\nRestart the worker when the queue stalls.",)]
