"""Record cards (app/rag/cards.py): the whole card, the card cut to the field asked, comments with their authors
and dates (or without them, as the engines gave them before they knew them), sprints, projects and documents,
in English and Spanish, and the computed shape the LLM turn holds a reply to. Pure: records built here."""

from __future__ import annotations

import datetime as dt

import pytest

from app.records_model import CommentSource, DocSource, ProjectSource, SprintSource, TaskSource
from app.rag import backbone, cards

CHEN = CommentSource("Blocked until the API contract is agreed.", 4, "Chen Wei", dt.datetime(2026, 11, 20, 9, 30))
TASK = TaskSource(107, "Fix login bug on the refund flow", "TODO", "MEDIUM", 4, "Payments Sprint 2", 2,
                  "Payments Platform", 5, "Diego", "Hernandez", 3.0, 8.0, dt.date(2026, 11, 20),
                  "Users are logged out after a password reset. Reproduce it.",
                  (CommentSource("I can reproduce this on staging.", 5, "Diego Hernandez", dt.datetime(2026, 11, 1)),
                   CommentSource("PR is up for review.", 2, "Ana Garcia", dt.datetime(2026, 11, 5)),
                   CommentSource("Added a test that fails without the fix."), CHEN))


def test_a_task_card_has_every_field_then_the_description_and_the_latest_comments_with_authors():
    card = cards.cards("tell me about task 107", [TASK])
    assert card.text == (
        "[TASK #107] Fix login bug on the refund flow\n"
        "Status: TODO | Priority: MEDIUM | Assignee: Diego Hernandez\n"
        "Sprint: Payments Sprint 2 | Due: 2026-11-20 | Story points: 3 | Estimated hours: 8\n"
        "Project: Payments Platform\n"
        "Description: Users are logged out after a password reset. Reproduce it.\n"
        "Latest comments (3 of 4):\n"
        "- Ana Garcia (2026-11-05): PR is up for review.\n"
        "- Added a test that fails without the fix.\n"  # an author and date the engine did not give: left out
        "- Chen Wei (2026-11-20): Blocked until the API contract is agreed.")
    assert (card.anchors, card.focus) == (("[TASK #107]",), "[TASK #107]")
    assert set(card.figures) == {"3", "8", "2026-11-20"}


@pytest.mark.parametrize("question, cut", [
    ("who is assigned to it?", "Assignee: Diego Hernandez"),
    ("¿quién la tiene?", "Responsable: Diego Hernandez"),
    ("when is it due?", "Due: 2026-11-20"),
    ("¿cuándo vence?", "Vence: 2026-11-20"),
    ("what is its status?", "Status: TODO"),
    ("how many story points is it?", "Story points: 3"),
    ("status and priority?", "Status: TODO\nPriority: MEDIUM"),
    ("what is blocking it?", "Status: TODO\nWhat blocks it:\n- Chen Wei (2026-11-20): Blocked until the API "
                             "contract is agreed."),
    ("¿qué la bloquea?", "Estado: TODO\nLo que la bloquea:\n- Chen Wei (2026-11-20): Blocked until the API "
                         "contract is agreed."),
    ("who commented on it?", "Latest comments:\n- Diego Hernandez (2026-11-01): I can reproduce this on staging.\n"
                             "- Ana Garcia (2026-11-05): PR is up for review.\n- Added a test that fails without the "
                             "fix.\n- Chen Wei (2026-11-20): Blocked until the API contract is agreed."),
])
def test_one_field_asked_cuts_the_card_to_it(question, cut):
    assert cards.cards(question, [TASK]).text == f"[TASK #107] Fix login bug on the refund flow\n{cut}"


def test_nothing_blocking_is_said_and_a_task_without_comments_says_so():
    quiet = TaskSource(**{**vars(TASK), "comments": ()})
    assert cards.cards("is it blocked?", [quiet]).text.endswith("Status: TODO\nNothing on record blocks it.")
    assert cards.cards("any comments?", [quiet]).text.endswith("\nNo comments yet.")
    assert cards.cards("¿algún comentario?", [quiet]).text.endswith("\nAún sin comentarios.")
    bare = TaskSource(9, "Untitled", None, None, None, None, None, None, None, None, None, None, None, None, None)
    assert cards.cards("task 9", [bare]).text == ("[TASK #9] Untitled\nStatus: - | Priority: - | Assignee: unassigned\n"
                                                 "Sprint: none | Due: -\nProject: none\nDescription: -")


def test_sprint_project_and_document_cards():
    sprint = SprintSource(4, "Payments Sprint 2", "ACTIVE", 2, "Payments Platform", "Harden and release",
                          dt.date(2026, 11, 26), dt.date(2026, 12, 9))
    assert cards.cards("sprint 4", [sprint]).text == ("[SPRINT #4] Payments Sprint 2 (ACTIVE)\nProject: Payments "
                                                      "Platform\nDates: 2026-11-26 -> 2026-12-09\nGoal: Harden and "
                                                      "release")
    assert cards.cards("¿cuándo termina el sprint 4?", [sprint]).text.endswith("(ACTIVE)\nFechas: 2026-11-26 -> "
                                                                               "2026-12-09")
    assert cards.cards("when is sprint 4 due?", [sprint]).text == ("[SPRINT #4] Payments Sprint 2 (ACTIVE)\nDates: "
                                                                   "2026-11-26 -> 2026-12-09")
    project = ProjectSource(2, "Payments Platform", "ACTIVE", "Card payments.", dt.date(2026, 9, 1), None)
    assert cards.cards("project 2", [project]).text == ("[PROJECT #2] Payments Platform (ACTIVE)\nDates: 2026-09-01 "
                                                        "-> -\nDescription: Card payments.")
    doc = DocSource(3, "Release process", "Releases happen every second Thursday.\n\nFreeze on Tuesday. QA signs "
                    "off on Wednesday.", None, None, "WIKI")
    assert cards.cards("doc 3", [doc]).text == ("[DOC #3] Release process\nReleases happen every second Thursday.\n"
                                                "Freeze on Tuesday. QA signs off on Wednesday.")


def test_a_long_document_is_cut_between_sentences():
    body = " ".join(f"Sentence number {i} says something." for i in range(200))
    text = cards.cards("doc 8", [DocSource(8, "Long", body, None, None, "WIKI")]).text
    assert len(text) <= cards.DOC_CHARS + len("[DOC #8] Long\n") and text.endswith("says something.…")


def test_what_is_not_found_reads_the_same_hidden_or_missing_and_in_spanish():
    both = cards.cards("status of task 107 and task 99999?", [TASK], ["task #99999"])
    assert both.text.endswith("\n\nI can't find task #99999 among what you can see.")
    assert both.anchors == ("[TASK #107]",) and both.focus == "[TASK #107]"
    gone = cards.cards("¿cuál es el estado de la tarea 9?", [], ["task #9"])
    assert gone.text == "No encuentro task #9 entre lo que puedes ver." and gone.focus is None


def test_a_reply_around_a_card_is_checked_against_it():
    card = cards.cards("tell me about task 107", [TASK])
    assert backbone.verdict("Diego has it, due 2026-11-20, 3 points [TASK #107].", card) is None
    assert backbone.verdict("Diego has it, 5 points [TASK #107].", card) == "contradicted"
    assert backbone.verdict("Diego has it.", card) == "incomplete"


def test_the_trackers_own_priority_is_shown_beside_ours_where_it_says_something_else():
    import dataclasses

    major = cards.cards("status and priority?", [dataclasses.replace(TASK, priority="HIGH", priority_name="Major")])
    assert major.text.endswith("Status: TODO\nPriority: HIGH (Major)")
    same = cards.cards("status and priority?", [dataclasses.replace(TASK, priority_name="Medium")])
    assert same.text.endswith("Priority: MEDIUM")
