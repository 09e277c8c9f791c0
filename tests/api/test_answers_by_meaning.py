"""Issue 23, documents by meaning: a question in a colleague's words, not the document's, is answered from the
document it means (app/rag/extractive.py ``meant``; a Spanish question by its English gloss), and a document
hidden from the asker is never answered with another visible one. On the demo data (the module's own copy of
the session's seeded database), offline. Every truth is read from the database in the test."""

from __future__ import annotations

import json

from app.rag import extractive

from .chat_data import ask
from .test_answers import BEN, MARIA, document_titled

CHEN = 4  # demo employees (app/demo_data.EMPLOYEES, seed order)


def paragraph(document, word):
    return next(p.strip() for p in document["body"].split("\n\n") if word in p)


def test_a_question_sharing_no_word_with_the_runbook_is_answered_from_it(offline, demo):
    """"call my boss" is the runbook's "Escalate to the manager": it shares "call" and "incident" with it, the
    chunk is far by distance (main answered "I don't know"), and its sentence is the closest in meaning by
    far. Words no record uses ("long", "boss", "during") outnumber the shared ones, so the answer leads with
    what nothing is about — and quotes the runbook as the closest."""
    engine, _ = demo
    runbook = document_titled(engine, "On-call runbook")
    answer = ask(offline, BEN, "how long before I call my boss during an incident?")
    assert answer["answer"].splitlines()[0] != extractive.I_DONT_KNOW["en"]
    assert answer["citations"][0] == f"[DOC #{runbook['document_id']}]"
    assert paragraph(runbook, "manager") in answer["answer"]


def test_a_spanish_question_is_compared_with_an_english_document_by_its_gloss(offline, demo):
    """"¿las devoluciones son inmediatas?" shares no word with "Refunds are asynchronous" but through the
    glossary, and MiniLM knows no Spanish: its English gloss ("refund … instant immediate synchronous") is
    what is compared with the decision's sentences."""
    engine, _ = demo
    psp = document_titled(engine, "Payments architecture decision: PSP migration")
    answer = ask(offline, MARIA, "¿las devoluciones son inmediatas?")
    assert answer["answer"].startswith(extractive.LEAD["es"]), answer["answer"]
    assert answer["citations"][0] == f"[DOC #{psp['document_id']}]"
    assert paragraph(psp, "Refunds") in answer["answer"]


def test_a_hidden_document_meant_in_other_words_is_not_answered_with_a_visible_one(offline, demo):
    """Chen's warehouse notes, asked in other words: Chen gets them; Ben, who may not see them, is told nothing
    he can see answers — never another visible record as if it did."""
    engine, _ = demo
    notes = document_titled(engine, "Personal notes: warehouse cost ideas")
    assert notes["owner_employee_id"] == CHEN
    question = "how should we split up the orders table?"
    chen = ask(offline, CHEN, question)
    assert chen["citations"][0] == f"[DOC #{notes['document_id']}]"
    assert paragraph(notes, "month") in chen["answer"]
    ben = ask(offline, BEN, question)
    first = ben["answer"].splitlines()[0]
    assert first == extractive.I_DONT_KNOW["en"] or first.startswith("Nothing you can see is about"), first
    assert f"[DOC #{notes['document_id']}]" not in json.dumps(ben)
