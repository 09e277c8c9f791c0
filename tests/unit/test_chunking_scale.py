"""Chunking at scale: counts add up at whitespace, tokenizer work is linear, pathological text is
split within the bounds with nothing lost, and an entity's indexed text is capped.

Timing belongs to scripts/bench_chunking.py; here linearity is shown by counting the characters
the chunker hands to the tokenizer, which is deterministic.
"""

from __future__ import annotations

import base64
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.records_model import CommentSource, DocSource, TaskSource
from app.embedding.tokens import count_tokens
from app.rag.chunking import MAX_BYTES, MAX_INDEXED_CHARS, MAX_TOKENS, chunk_record, pack, unindexed_chars
from app.rag.templates import paragraphs

REAL_TEXT = [
    "La migración de la base de datos falló el miércoles; añadimos un índice pequeño y ¿funcionó? ¡Sí!",
    "El niño comió piñata en el año 2025. Über naïve café résumé façade coöperate.",
    "Decomposed accents: cafe\u0301 nin\u0303o, and a mark after a space: x \u0301y.",
    "Deploy https://example.com/api/v1/search?q=login&top_k=5#frag to prod-eu-1 (v2.3.1) — done.",
    "東京の漢字テキストとEnglish mixed 中文字符 한국어 텍스트 and emoji 🙂🚀👍🏽 at the end",
    "supercalifragilisticexpialidocious " + "x" * 150 + " " + "ab" * 80 + " pneumonoultramicroscopic",
    base64.b64encode(random.Random(1).randbytes(600)).decode(),
    "tabs\tand\u00a0no-break\u2003em spaces, control\x07chars\x1bhere, zero\u200bwidth, soft\u00adhyphen",
    "Ünïcödé ÀÉÎÕÜ İstanbul ǅ ß ﬁ ΣΊΣΥΦΟΣ ДЕПЛОЙ 'quotes' \"double\" «guillemets» …ellipsis",
]


def words(text: str) -> list[str]:
    return text.split()  # the chunker's word boundary (regex \s) is str.isspace


def non_space(text: str) -> str:
    return "".join(text.split())


def bodies(chunks) -> list[str]:
    return [c.content.split("\n", 1)[1] for c in chunks]


@pytest.mark.parametrize("text", REAL_TEXT)
def test_wordpiece_counts_add_up_across_the_joiners_the_chunker_inserts(text):
    ws = words(text)
    for joiner in (" ", "\n"):
        assert count_tokens(joiner.join(ws)) == sum(count_tokens(w) for w in ws)
    # Pieces of one word cut anywhere (the hard split) add up once separated too.
    blob = "".join(ws)
    cuts = sorted(random.Random(len(blob)).sample(range(1, len(blob)), min(12, len(blob) - 1)))
    pieces = [blob[a:b] for a, b in zip([0, *cuts], [*cuts, len(blob)])]
    assert count_tokens(" ".join(pieces)) == sum(count_tokens(p) for p in pieces)
    assert count_tokens("[DOC #1] Título\n" + text) == count_tokens("[DOC #1] Título") + count_tokens(text)


TRICKY = st.sampled_from(list("aeiouñáé漢字🙂.,;!?¿-_/#@'\u0301\x07\u00ad") + ["login", "despliegue", "x" * 120])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(TRICKY, min_size=1, max_size=8).map("".join), min_size=1, max_size=40))
def test_additivity_holds_for_arbitrary_words(ws):
    assert count_tokens(" ".join(ws)) == sum(count_tokens(w) for w in ws)


class CountingCounter:
    """The real tokenizer, tallying the characters it is asked to count."""

    def __init__(self):
        self.chars = 0

    def __call__(self, text: str) -> int:
        self.chars += len(text)
        return count_tokens(text)


def shape(name: str, n: int) -> str:
    rng = random.Random(n)
    if name == "short words":
        return " ".join(rng.choice(["ab", "cd", "efg", "login", "año", "x"]) for _ in range(n // 3))[:n]
    if name == "unbroken":
        return "abcdefghij0123456789" * (n // 20)
    if name == "cjk":
        return "".join(chr(0x4E00 + rng.randrange(20000)) for _ in range(n))
    if name == "base64":
        return base64.b64encode(rng.randbytes(n))[:n].decode()
    sentences = [" ".join(rng.choice(["la", "migración", "deploy", "bug", "cache"]) for _ in range(rng.randint(3, 30)))
                 + "." for _ in range(n // 60)]
    return " ".join(sentences)[:n]  # one giant paragraph of sentences


@pytest.mark.parametrize("name", ["short words", "unbroken", "cjk", "base64", "sentences"])
def test_tokenizer_work_is_linear_in_text_length(name):
    # Today's code re-counted growing prefixes: 100k characters of CJK handed ~25M to the tokenizer.
    for n in (20_000, 100_000):
        counter = CountingCounter()
        chunk_record(DocSource(1, "T", shape(name, n), None, None, None), counter)
        assert counter.chars <= 3 * n, (name, n, counter.chars / n)  # measured: 1.0-2.1


@pytest.mark.parametrize("name,n", [("unbroken", 1_000_000), ("cjk", 100_000), ("short words", 100_000),
                                    ("base64", 100_000), ("sentences", 100_000)])
def test_pathological_text_is_split_within_bounds_and_nothing_is_lost(name, n):
    text = shape(name, n)
    chunks = chunk_record(DocSource(9, "Blob", text, None, None, None), count_tokens, max_chars=n)
    assert all(c.content.startswith("[DOC #9] Blob\n") for c in chunks)
    assert all(len(c.content.encode()) <= MAX_BYTES for c in chunks)
    assert all(count_tokens(c.content) <= MAX_TOKENS for c in chunks)
    assert non_space("".join(bodies(chunks))) == non_space(text)
    if name in ("unbroken", "cjk", "base64"):  # one word cut in pieces: never a separator inserted
        assert "".join(bodies(chunks)) == text


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.lists(st.one_of(TRICKY, st.sampled_from([" ", "  ", "\n", "\n\n", "\t", ". "])), max_size=60)
             .map("".join), min_size=1, max_size=6),
    st.integers(20, 80),
    st.integers(60, 400),
)
def test_any_text_packs_within_small_bounds_in_order(units, max_tokens, max_bytes):
    chunks = pack("[DOC #1] T", units, count_tokens, max_tokens=max_tokens, max_bytes=max_bytes)
    assert all(c.startswith("[DOC #1] T\n") or c == "[DOC #1] T" for c in chunks)
    assert all(count_tokens(c) <= max_tokens and len(c.encode()) <= max_bytes for c in chunks)
    assert non_space("".join(c.split("\n", 1)[1] for c in chunks if "\n" in c)) == non_space("".join(units))


def test_an_entity_is_indexed_up_to_the_cap_and_the_rest_is_reported():
    body = "\n\n".join(f"Paragraph {i}: " + "palabra " * 40 for i in range(200))
    doc = DocSource(3, "Big", body, None, None, None)
    chunks = chunk_record(doc, count_tokens, max_chars=5_000)
    assert non_space("".join(bodies(chunks))) == non_space("".join(paragraphs(body))[:5_000])
    assert unindexed_chars(doc, 5_000) == sum(map(len, paragraphs(body))) - 5_000 > 0
    assert unindexed_chars(doc) == 0 and len(chunk_record(doc, count_tokens)) > len(chunks)


def test_a_task_with_many_comments_keeps_its_fields_and_first_comments():
    comments = tuple(CommentSource(f"comment {i} " + "deploy " * 300) for i in range(150))
    task = TaskSource(7, "Deploy", None, None, None, None, None, None, 4, "Leo", "Diaz", None, None, None,
                      "short", comments)
    assert unindexed_chars(task) > 0  # each comment fits the API; together they pass the cap
    chunks = chunk_record(task, count_tokens)
    assert "Assignee: Leo Diaz" in chunks[0].content and chunks[1].content.startswith("[TASK #7] Deploy\n- comment 0 ")
    indexed = non_space("".join(bodies(chunks)))
    assert len(indexed) <= MAX_INDEXED_CHARS and "comment149" not in indexed
