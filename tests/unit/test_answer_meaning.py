"""Pure logic of answers by meaning (issue 23, documents): the entity a question means (extractive.meant), its
place in the gate and in coverage, a Spanish question's English gloss, and a hyphenated word's parts."""

from __future__ import annotations

from app.domain import SearchHit
from app.rag import bilingual, extractive, terms

RUNBOOK = ("[DOC #2] On-call runbook\nPages go to the primary on call first.\n\nFor a payments outage, disable "
           "the PSP webhook retries and post in #incidents.\n\nEscalate to the manager after 30 minutes.")
NOTES = "[DOC #6] 1:1 notes Ana / Maria\nAna wants to lead the offline sync design."
SYNC_TASK = ("[TASK #91] Write documentation for offline sync\nStatus: TODO | Priority: LOW\n"
             "Project: Mobile App Relaunch\nDescription: Document the offline sync of the mobile app.")
MAX = 0.655


def hit(content: str, source_type: str, source_id: int, distance: float = 0.9) -> SearchHit:
    return SearchHit(source_type, source_id, 0, content, distance, 1 - distance)


def test_the_meant_entity_stands_out_by_meaning_and_is_never_a_task():
    assert extractive.meant({"[DOC #2]": 0.50, "[TASK #9]": 0.30}) == "[DOC #2]"
    assert extractive.meant({"[DOC #2]": 0.50, "[DOC #3]": 0.45}) is None  # not MEANT_MARGIN clear
    assert extractive.meant({"[DOC #2]": extractive.MEANT - 0.01}) is None  # not close enough
    assert extractive.meant({"[TASK #9]": 0.9, "[DOC #2]": 0.3}) is None  # a task is named, not meant
    assert extractive.meant({}) is None and extractive.meant(None) is None


def test_a_meant_document_passes_the_gate_and_covers_what_its_words_do_not():
    """"payments are down, what now?" shares only "payments" with the runbook, far by the chunk's distance:
    the words alone say "I don't know". Close in meaning, the runbook passes the gate; as "down" is a word no
    record uses, as many as the shared ones, it covers the question only when MEANT_OVER_WORDS close — else
    it is what the answer quotes as the closest."""
    question = "payments are down, what now?"
    runbook = hit(RUNBOOK, "doc", 2)
    assert extractive.plan(question, [runbook], MAX) is None
    closest = extractive.plan(question, [runbook], MAX, meaning={"[DOC #2]": extractive.MEANT})
    assert closest is not None and not closest.covered and [i.anchor for i in closest.items] == ["[DOC #2]"]
    planned = extractive.plan(question, [runbook], MAX, meaning={"[DOC #2]": extractive.MEANT_OVER_WORDS})
    assert planned is not None and planned.covered and [i.anchor for i in planned.items] == ["[DOC #2]"]


def test_meaning_does_not_cover_what_another_hits_words_say_more_of():
    """No hit holds every word of the question; the 1:1 notes are the closest in meaning, but the task holds
    more of its words (documentation, mobile app): the words say the question is about something else, so
    meaning does not make the notes cover it. Without the task, they do."""
    question = "offline sync documentation of the design for the mobile app"
    notes, task = hit(NOTES, "doc", 6), hit(SYNC_TASK, "task", 91, 0.5)
    meaning = {"[DOC #6]": 0.6, "[TASK #91]": 0.3}
    planned = extractive.plan(question, [notes, task], MAX, meaning=meaning)
    assert planned is not None and not planned.covered
    alone = extractive.plan(question, [notes], MAX, meaning={"[DOC #6]": 0.6})
    assert alone is not None and alone.covered and [i.anchor for i in alone.items] == ["[DOC #6]"]


def test_a_spanish_questions_gloss_says_its_known_words_in_english():
    assert bilingual.gloss("¿las devoluciones son inmediatas?").split()[:2] == ["refund", "refunds"]
    assert "instant" in bilingual.gloss("¿las devoluciones son inmediatas?")
    assert "administración" in bilingual.gloss("como va lo del panel de administración")  # unknown: as written
    assert bilingual.gloss("cuando es el hackathon") is None  # no word known: nothing to compare
    assert bilingual.gloss("are refunds instant?") is None  # English: the question itself is compared


def test_a_hyphenated_word_holds_its_parts():
    assert {"help", "eng"} <= terms.text_stems("ask in #eng-help")


PROJECT = ("[PROJECT #1] Mobile App Relaunch (ACTIVE)\nRebuild the customer mobile app on one codebase, with "
           "offline mode and a new onboarding.")


def test_known_words_covered_only_far_in_meaning_name_the_topic_not_what_is_asked():
    """"is offline mode on schedule?" asked by someone who may not see the notes that say it slips: the
    project holds "offline" and "mode", "schedule" no visible record uses, and the project's sentences are
    far from the question in meaning — nothing visible is about it. Close in meaning, or with no meaning
    measured (a Spanish question with no gloss), the words decide as before."""
    question = "is offline mode on schedule?"
    project = SearchHit("project", 1, 0, PROJECT, 0.4, 0.6)
    far = extractive.plan(question, [project], MAX, meaning={"[PROJECT #1]": extractive.MEANT_FLOOR - 0.05})
    assert far is not None and not far.covered and [i.anchor for i in far.items] == ["[PROJECT #1]"]
    near = extractive.plan(question, [project], MAX, meaning={"[PROJECT #1]": extractive.MEANT_FLOOR + 0.05})
    assert near is not None and near.covered
    assert extractive.plan(question, [project], MAX).covered
