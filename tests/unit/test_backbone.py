"""The checks an LLM's reply passes before it may stand: anchors it was never given make it ungrounded as a
whole (app/rag/citations.py ``invented``), and against a computed answer it must keep every anchor and state
no other number (app/rag/backbone.py). Pure functions, no I/O."""

from __future__ import annotations

import pytest

from app.domain import SearchHit
from app.rag import backbone, citations, prompting
from app.rag.computed import Computed

LIST = Computed("Tasks (overdue in Payments Sprint 2) — 2:\n- [TASK #107] Fix login bug — TODO, due 2026-11-20\n"
                "- [TASK #23] Add monitoring alerts — TODO, 5 points", ("[TASK #107]", "[TASK #23]"), ("2",),
                "[TASK #107]")


def test_the_issues_weak_reply_cites_an_invented_anchor():
    reply = "The sprint has overdue work [TASK #99999]. See also [SPRINT #1]."
    assert citations.invented(reply, {"[SPRINT #1]", "[TASK #107]"}) == ["[TASK #99999]"]
    assert citations.invented("Due soon [task # 107], see [ TASK #0107 ].", {"[TASK #107]"}) == []
    assert citations.invented("[TASK #1, #2] are late.", {"[TASK #1]"}) == ["[TASK #2]"]
    assert citations.invented("No anchors at all.", set()) == []


@pytest.mark.parametrize("reply", [
    "Two tasks are overdue: [TASK #107] (due 2026-11-20) and [TASK #23].",
    "2 overdue: [task #107], due 2026-11-20, and [TASK #23], 5 points.",
    "1. [TASK #107]\n2. [TASK #23]\nBoth are overdue.",  # list marks are not figures
])
def test_a_reply_that_keeps_the_computed_answer_stands(reply):
    assert backbone.verdict(reply, LIST) is None


@pytest.mark.parametrize("reply, expected", [
    ("Only [TASK #107] is overdue.", "incomplete"),
    ("See also [SPRINT #1].", "incomplete"),
    ("3 tasks are overdue: [TASK #107] and [TASK #23].", "contradicted"),
    ("[TASK #107] and [TASK #23] are overdue, 13 points in all.", "contradicted"),
    ("[TASK #107] is due 2026-11-21 and [TASK #23] too.", "contradicted"),
])
def test_a_reply_that_drops_or_contradicts_it_does_not(reply, expected):
    assert backbone.verdict(reply, LIST) == expected


def test_numbers_are_normalised_and_anchors_are_not_numbers():
    assert backbone.numbers("007 and 2.50 and 3.0 on 2026-11-05") == {"7", "2.5", "3", "2026-11-05"}
    assert backbone.verdict("[TASK #107] is due November 20 and [TASK #23] too.", LIST) == "contradicted"
    card = Computed("[TASK #5] Refund flow\nStatus: TODO", ("[TASK #5]",), (), "[TASK #5]")
    assert backbone.verdict("It is to do [TASK #5].", card) is None  # the anchor's id is not a stated figure
    assert backbone.verdict("It is to do [TASK #5], task 5.", card) is None  # its id, written out: in the text
    assert backbone.verdict("It is to do [TASK #5], since day 4.", card) == "contradicted"


def hit(source_type, source_id, chunk_ix=0):
    return SearchHit(source_type, source_id, chunk_ix, f"[{source_type.upper()} #{source_id}] x", 0.1, 0.9)


def test_no_chunk_twice_in_a_prompt():
    hits = [hit("task", 107), hit("doc", 3), hit("doc", 3), hit("doc", 3, 1), hit("task", 107, 1), hit("task", 5)]
    kept = prompting.distinct_hits(hits, whole={("task", 107)})
    assert [(h.source_type, h.source_id, h.chunk_ix) for h in kept] == [("doc", 3, 0), ("doc", 3, 1), ("task", 5, 0)]
    messages = prompting.build_messages("q", kept, evidence=["[TASK #107] Fix login bug\nStatus: TODO"])
    assert messages[-1]["content"].count("[TASK #107]") == 1 and messages[-1]["content"].count("[DOC #3]") == 2
