"""The conversation benchmark's truths (app/evals/conversation_truth.py) on a hand-made snapshot, its
conversations (app/evals/conversation_cases.py), and its loopback model over a real socket."""

from __future__ import annotations

import datetime as dt

import httpx
import pytest

from app.evals import conversation_cases
from app.evals.conversation_truth import REFUSAL, Snapshot, truth
from app.evals.loopback_llm import INVENTED, LoopbackLLM, reply_to
from app.rag.prompting import COMPUTED_RULE

TODAY = dt.date(2026, 12, 2)  # a Wednesday


def task(task_id, assignee, status="TODO", due=TODAY, project=1, sprint=1, points=3.0, title=None):
    return {"task_id": task_id, "title": title or f"Task number {task_id}", "status": status, "priority": "HIGH",
            "assignee_id": assignee, "project_id": project, "sprint_id": sprint, "story_points": points,
            "expected_end_date": due}


@pytest.fixture
def snap() -> Snapshot:
    people = {1: ("Maria", "Lopez", "MANAGER"), 2: ("Ana", "Garcia", "DEVELOPER"), 3: ("Ben", "Carter", "DEVELOPER")}
    tasks = [task(1, 2, "IN_PROGRESS", TODAY - dt.timedelta(days=3)), task(2, 2, "DONE", TODAY - dt.timedelta(days=3)),
             task(3, 3, "TODO", TODAY - dt.timedelta(days=1), project=2, sprint=2, points=8.0),
             task(4, 3, "IN_PROGRESS", TODAY + dt.timedelta(days=7), project=2, sprint=2, points=5.0),
             task(5, None, "TODO", TODAY + dt.timedelta(days=1))]
    comments = [{"comment_id": 1, "task_id": 3, "author_id": 2, "body": "Blocked until the API contract is agreed.",
                 "created_at": "2026-11-20T10:00:00"},
                {"comment_id": 2, "task_id": 3, "author_id": 3, "body": "PR is up for review.",
                 "created_at": "2026-11-21T10:00:00"},
                {"comment_id": 3, "task_id": 3, "author_id": 3, "body": "Deployed to staging.",
                 "created_at": "2026-11-19T10:00:00"}]
    docs = [{"document_id": 1, "title": "Release process", "body": "Every second Thursday.\n\nFreeze on Tuesday.",
             "owner_employee_id": None, "project_id": None},
            {"document_id": 2, "title": "Weekly sync notes", "body": "Login bug first.", "owner_employee_id": 1,
             "project_id": 1}]
    return Snapshot(TODAY, {i: {"employee_id": i, "first_name": f, "last_name": last, "role": r}
                            for i, (f, last, r) in people.items()},
                    {1: {"project_id": 1, "name": "Mobile App Relaunch"}, 2: {"project_id": 2, "name": "Payments Platform"}},
                    {1: {"sprint_id": 1, "name": "Mobile Sprint 1"}, 2: {"sprint_id": 2, "name": "Payments Sprint 1"}},
                    {t["task_id"]: t for t in tasks}, tuple(comments), {d["document_id"]: d for d in docs})


def test_a_developers_lists_hold_only_their_tasks_and_overdue_means_late_and_not_done(snap):
    assert truth(snap, 2, "my_overdue", {}, None).tasks == {"[TASK #1]"}  # task 2 is late but DONE
    assert truth(snap, 3, "my_status", {"status": "IN_PROGRESS"}, None).tasks == {"[TASK #4]"}
    assert truth(snap, 1, "my_status", {"status": "TODO"}, None) == REFUSAL  # the manager has no task
    assert truth(snap, 2, "person_tasks", {"person": 3}, None) == REFUSAL  # Ben's tasks are hidden from Ana
    assert truth(snap, 1, "person_tasks", {"person": 3}, None).tasks == {"[TASK #3]", "[TASK #4]"}
    assert truth(snap, 3, "my_due", {"window": 1}, None).tasks == {"[TASK #4]"}  # next ISO week
    assert truth(snap, 1, "person_overdue", {"person": 3}, None).tasks == {"[TASK #3]"}
    assert truth(snap, 1, "topic_tasks", {"area": "number 4"}, None).tasks == {"[TASK #4]"}  # whole words: not 14
    assert truth(snap, 2, "topic_tasks", {"area": "number 4"}, None) == REFUSAL


def test_lookups_give_the_stored_value_and_a_hidden_or_missing_task_is_a_refusal(snap):
    due = truth(snap, 1, "lookup_due", {"task": 4}, None)
    assert due.entity == "[TASK #4]" and due.values[0][0] == "2026-12-09" and "9 de diciembre de 2026" in due.values[0]
    assert truth(snap, 1, "lookup_assignee", {"task": 5}, None).values == (("unassigned", "sin asignar", "nobody",
                                                                            "no one", "nadie"),)
    card = truth(snap, 3, "card", {"task": 3}, None)
    assert card.raw_values == ("TODO", "Ben Carter", "2026-12-01") and "assigned to you" in card.values[1]
    assert "assigned to you" not in truth(snap, 1, "card", {"task": 3}, None).values[1]  # Maria asks: not hers
    assert truth(snap, 2, "lookup_status", {"task": 3}, None) == REFUSAL
    assert truth(snap, 1, "lookup_status", {"task": 9999}, None) == REFUSAL


def test_counts_sums_and_comparisons_count_what_the_asker_sees_under_the_scope(snap):
    assert truth(snap, 1, "count_status", {"status": "TODO", "project": 1}, None).figure == 1  # task 5
    assert truth(snap, 3, "count_status", {"status": "TODO", "project": 1}, None) == REFUSAL
    assert truth(snap, 1, "sum_points", {"sprint": 2}, None).figure == 13
    overdue = truth(snap, 1, "compare_project_overdue", {}, None)
    assert overdue.figure == 1 and "mobile app relaunch" in overdue.values[0] and "payments platform" in overdue.values[0]
    assert truth(snap, 1, "compare_person_open", {}, 2).raw_values == ("3",)  # under Payments: Ben, 2 open
    assert "you have" in truth(snap, 3, "compare_person_open", {}, None).values[0]  # Ben sees only his own
    assert truth(snap, 1, "fu_count_status", {"status": "TODO"}, 2).tasks == {"[TASK #3]"}


def test_blocked_is_a_blocked_status_or_words_saying_it_is_held_up_and_not_that_it_blocks_another(snap):
    snap.tasks[1]["description"] = "Waiting on design for the new screens."
    snap.tasks[5]["status"] = "BLOCKED"
    snap.tasks[4]["description"] = "This blocks the release; pendiente de revisión."  # the other way round
    blocked = truth(snap, 1, "blocked_project", {"project": 1}, None)
    assert blocked.tasks == {"[TASK #1]", "[TASK #5]"}
    assert truth(snap, 1, "blocked_project", {"project": 2}, None).tasks == {"[TASK #3]"}  # "Blocked until ..."


def test_comments_blockers_and_documents(snap):
    # in date order (comment 3 is the oldest), each author once
    assert truth(snap, 1, "comment_authors", {"task": 3}, None).raw_values == ("Ben Carter", "Ana Garcia")
    assert truth(snap, 1, "fu_others", {"task": 3}, None).raw_values == ("Ana Garcia",)  # not the assignee
    assert truth(snap, 3, "latest_comment", {"task": 3}, None).sentences == ("PR is up for review.",)
    assert truth(snap, 1, "blocked_project", {"project": 2}, None).tasks == {"[TASK #3]"}
    assert truth(snap, 1, "fu_blocked", {}, 1) == REFUSAL  # nothing blocked in the scoped project
    fact = truth(snap, 2, "doc_fact", {"doc": 1, "key": "freeze"}, None)
    assert fact.entity == "[DOC #1]" and fact.sentences == ("Freeze on Tuesday.",)
    assert truth(snap, 1, "doc_summary", {"doc": 1}, None).sentences == ("Every second Thursday.", "Freeze on Tuesday.")
    assert truth(snap, 2, "doc_summary", {"doc": 2}, None) == REFUSAL  # Maria's notes
    assert truth(snap, 2, "scope_project", {"project": 2}, None).scope == "2"
    assert truth(snap, 2, "nowhere", {}, None) == REFUSAL


def test_what_is_hidden_from_a_developer_is_named_for_the_leak_check(snap):
    hidden = snap.hidden(2)
    assert hidden.anchors == {"[TASK #3]", "[TASK #4]", "[TASK #5]", "[DOC #2]"}
    assert "Weekly sync notes" in hidden.titles and "Task number 1" not in hidden.titles
    assert hidden.passages == ("Login bug first.",) and "Task number 1" in hidden.visible_titles
    assert "[PROJECT #2]" in hidden.existing and "[TASK #99999]" not in hidden.existing
    manager = snap.hidden(1)
    assert (manager.anchors, manager.titles, manager.passages) == (frozenset(), (), ())


def test_phrasings_split_into_tuned_and_held_out_with_the_same_templates_and_no_phrasing_in_both():
    from app.evals import conversation_phrasings as tuned
    from app.evals import conversation_phrasings_heldout as heldout

    assert set(tuned.PHRASINGS) == set(heldout.PHRASINGS)
    for template, langs in tuned.PHRASINGS.items():
        for lang in ("en", "es"):
            kept, held = langs[lang], heldout.PHRASINGS[template][lang]
            assert len(kept) >= len(held) * 2 and not set(kept) & set(held), (template, lang)
    assert not {q for _, q, *_ in tuned.DOC_FACTS} & {q for _, q, *_ in heldout.DOC_FACTS}


def test_a_stratified_sample_keeps_every_kind_and_chains():
    def case(template, lang, turns):
        return conversation_cases.Case(f"{template}-{lang}-{turns}", 1, tuple(
            conversation_cases.Turn("q", lang, "tuned", template, ()) for _ in range(turns)))

    cases = [case(t, lang, n) for t in ("my_status", "card", "nowhere") for lang in ("en", "es")
             for n in (1, 1, 1, 4)]
    chosen = conversation_cases.sample(cases, 12)
    assert sum(len(c.turns) for c in chosen) >= 12
    assert {(c.turns[0].template, c.turns[0].lang) for c in chosen} == {(t, lang) for t in ("my_status", "card", "nowhere")
                                                                       for lang in ("en", "es")}
    assert chosen == conversation_cases.sample(cases, 12)  # fixed


def test_the_honest_model_says_its_context_and_the_inventing_one_adds_anchors():
    """With a computed answer (the system prompt's COMPUTED_RULE) the honest model says that block alone; from
    retrieved records, every record it was given."""
    context = {"role": "user", "content": "Context:\n\n[TASK #3] Fix it\nStatus: TODO\n\n---\n\n[DOC #1] Other"
                                          "\n\nQuestion: what is the status of task 3?"}
    computed = [{"role": "system", "content": f"rules {COMPUTED_RULE}"}, context]
    assert reply_to(computed, "honest") == "[TASK #3] Fix it\nStatus: TODO"
    assert reply_to(computed, "inventing") == "[TASK #3] Fix it\nStatus: TODO" + INVENTED
    retrieved = [{"role": "system", "content": "rules"}, context]
    assert reply_to(retrieved, "honest") == "[TASK #3] Fix it\nStatus: TODO\n\n[DOC #1] Other"
    empty = [{"role": "user", "content": "Context:\n\n(no context)\n\nQuestion: hi?"}]
    assert reply_to(empty, "honest") == "I don't know."
    rewrite = [{"role": "user", "content": "The conversation is about: [TASK #3] Fix it\n\nConversation:\nUser: a"
                                           "\n\nLast question: when is it due?"}]
    assert reply_to(rewrite, "honest") == "when is it due? [TASK #3] Fix it"


def test_the_loopback_model_answers_over_a_real_socket():
    prompt = [{"role": "user", "content": "Context:\n\n[DOC #1] Release\n\nQuestion: when?"}]
    with LoopbackLLM("inventing") as llm:
        reply = httpx.post(f"{llm.url}/chat/completions", json={"model": "m", "messages": prompt}, timeout=10)
    assert reply.status_code == 200 and llm.requests == 1
    assert reply.json()["choices"][0]["message"]["content"] == "[DOC #1] Release" + INVENTED
    with pytest.raises(ValueError, match="honest, inventing"):
        LoopbackLLM("lying")
