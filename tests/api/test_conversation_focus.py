"""Issue 15, replayed as written on the demo data (seeded and indexed once for the module through the real
write path): follow-ups that keep their topic, ids, tracker questions, the two-arm answer gate, one
deadline per turn, clean citations, the stream's reset event, pinned scopes, summaries and tool results.
Offline, and against the loopback LLM (tests/fake_llm.py) where the LLM is involved."""

from __future__ import annotations

import json
import time

import pytest
from fastapi.testclient import TestClient

from app.entities import PROJECTS, TASKS
from tests.fake_llm import FakeLLM, Reply

from .chat_data import AUTH, ask, converse, demo_app as _app, llm_settings

MARIA, ANA, BEN, CHEN, DIEGO = 1, 2, 3, 4, 5  # demo employees (app/demo_data.EMPLOYEES, seed order)
REFUND_LOGIN = "[TASK #107]"  # "Fix login bug on the refund flow", Diego's, blocked by a comment


# --- 1. follow-ups keep the topic -------------------------------------------------------------------

def test_follow_ups_keep_the_topic_any_number_of_turns_deep(offline):
    first, assigned, blocking, due = converse(offline, MARIA, "what is wrong with the login bug on the refund flow?",
                                              "who is assigned to it?", "what is blocking it?", "when is it due?")
    assert first["citations"][0] == REFUND_LOGIN
    for answer in (assigned, blocking, due):  # "it" is the one task the first answer was about, not three
        assert answer["citations"] == [REFUND_LOGIN]
    # what blocks it is read from its comments (the blockers route), the other fields from its record
    assert [a["route"] for a in (assigned, blocking, due)] == ["follow_up", "blockers", "follow_up"]
    assert "Assignee: Diego Hernandez" in assigned["answer"]
    assert "Blocked until the API contract is agreed." in blocking["answer"]
    assert "Due: " in due["answer"] and "I don't know" not in due["answer"]


def test_diego_in_english_then_spanish_follow_ups(offline):
    answers = converse(offline, DIEGO, "what is wrong with the login bug on the refund flow?",
                       "who is assigned to it?", "when is it due?", "¿cuándo vence?")
    assert [a["citations"] for a in answers[1:]] == [[REFUND_LOGIN]] * 3
    # issue 23: a follow-up is the focus's record card, cut to the field asked, labelled in the question's language
    assert answers[3]["answer"].startswith("[TASK #107] (Bug) Fix login bug on the refund flow\nVence: ")


def test_a_spanish_conversation_with_the_llm_keeps_its_topic_turn_after_turn(demo):
    """The same conversation as Diego's offline one, in Spanish, with the loopback LLM answering: each follow-up
    is rewritten with the focus named, and the answer call gets the focus's own record first in its context."""
    script = [Reply.plain("Está en TODO y bloqueada [TASK #107]."),
              Reply.plain("¿quién tiene asignada la tarea Fix login bug on the refund flow?"),
              Reply.plain("La tiene Diego Hernandez [TASK #107]."),
              Reply.plain("¿cuándo vence la tarea Fix login bug on the refund flow?"),
              Reply.plain("Vence pronto [TASK #107].")]
    with FakeLLM(*script) as llm, TestClient(_app(demo, **llm_settings(llm))) as c:
        answers = converse(c, DIEGO, "¿cuál es el estado de la tarea 107?", "¿quién la tiene asignada?",
                           "¿cuándo vence?")
    assert [a["llm_used"] for a in answers] == [True] * 3 and [a["citations"] for a in answers] == [[REFUND_LOGIN]] * 3
    assert [a["route"] for a in answers] == ["lookup", "follow_up", "follow_up"]
    assert answers[2]["answer"] == "Vence pronto [TASK #107]."
    for rewrite, answer, question in ((llm.requests[1], llm.requests[2], "¿quién la tiene asignada?"),
                                      (llm.requests[3], llm.requests[4], "¿cuándo vence?")):
        assert "The conversation is about: [TASK #107] (Bug) Fix login bug on the refund flow" in json.dumps(
            rewrite["body"]["messages"], ensure_ascii=False)
        last = answer["body"]["messages"][-1]["content"]
        assert last.startswith("Context:\n\n[TASK #107] (Bug) Fix login bug on the refund flow")  # the card first
        assert last.endswith(question) and last.count("[TASK #107] (Bug) Fix login bug on the refund flow\nStatus:") == 1
        assert any("tarea 107" in m["content"] for m in answer["body"]["messages"][1:-1])  # the earlier turns


def test_a_question_that_names_its_own_topic_moves_the_focus(offline):
    *_, moved, follow = converse(offline, MARIA, "what is wrong with the login bug on the refund flow?",
                                 "who is assigned to it?", "who is investigating the crash in the iOS build?",
                                 "when is it due?")
    assert moved["citations"][0] == "[TASK #55]" and follow["citations"] == ["[TASK #55]"]


def test_a_tracker_question_mid_conversation_is_not_read_as_about_the_focus(offline):
    """Review: "this" in "this week" and "there" in "are there" pointed back at the focus."""
    _, week, open_tasks = converse(offline, MARIA, "what is wrong with the login bug on the refund flow?",
                                   "which tasks are due this week?", "are there any open tasks?")
    assert week["route"] == open_tasks["route"] == "tasks"
    assert week["answer"].startswith("Tasks (due this week") and len(open_tasks["citations"]) > 1


def test_follow_ups_keep_the_topic_when_the_llms_rewrite_fails(demo):
    with FakeLLM(Reply.status(500)) as llm, TestClient(_app(demo, **llm_settings(llm))) as c:
        # (a follow-up that reads a field: "what is blocking it?" is the blockers route, which needs no rewrite)
        first, assigned = converse(c, MARIA, "what is wrong with the login bug on the refund flow?",
                                   "who is assigned to it?")
    assert assigned["llm_error"] == "bad_response" and assigned["citations"] == [REFUND_LOGIN]
    assert "Assignee: Diego Hernandez" in assigned["answer"]
    rewrite = llm.requests[1]["body"]["messages"]  # the first turn made one call; the second turn the rewrite first
    assert "The conversation is about: [TASK #107] (Bug) Fix login bug on the refund flow" in rewrite[1]["content"]


# --- 2. entities by id ----------------------------------------------------------------------------

@pytest.mark.parametrize("question", ["what is the status of task 107?", "what is the status of TASK #107?",
                                      "¿cuál es el estado de la tarea 107?", "status of #107"])
def test_a_task_asked_by_its_id_is_looked_up_first(offline, question):
    answer = ask(offline, MARIA, question)
    assert answer["route"] == "lookup" and answer["citations"] == [REFUND_LOGIN]
    label = "Estado" if "estado" in question else "Status"
    assert f"{label}: TODO" in answer["answer"] and answer["results"][0]["origin"] in ("entity", "search")


def test_a_hidden_id_answers_exactly_like_a_missing_one(offline, demo):
    engine, _ = demo
    assert engine.get(TASKS, 107)["assignee_id"] == DIEGO and engine.get(TASKS, 99_999) is None
    hidden = ask(offline, ANA, "what is the status of task 107?")
    missing = ask(offline, ANA, "what is the status of task 99999?")
    assert hidden["answer"].replace("107", "N") == missing["answer"].replace("99999", "N")
    assert hidden["citations"] == missing["citations"] == [] and hidden["route"] == missing["route"] == "lookup"
    for answer in (hidden, missing):
        assert not any(r["source_type"] == "task" and r["source_id"] == 107 for r in answer["results"])


def test_the_models_get_entity_tool_hides_and_misses_alike(demo):
    calls = Reply.tools(("c1", "get_entity", json.dumps({"type": "task", "id": 107})),
                        ("c2", "get_entity", json.dumps({"type": "task", "id": 99999})))
    script = [calls, Reply.plain("I do not know."), calls, Reply.plain("I do not know.")]
    with FakeLLM(*script) as llm, TestClient(_app(demo, **llm_settings(llm))) as c:
        ask(c, ANA, "tell me about the login bug")
        ask(c, DIEGO, "tell me about the login bug")
    ana_tools = [json.loads(m["content"]) for m in llm.requests[1]["body"]["messages"] if m["role"] == "tool"]
    assert ana_tools[0]["error"].replace("107", "N") == ana_tools[1]["error"].replace("99999", "N")
    diego_tools = [json.loads(m["content"]) for m in llm.requests[3]["body"]["messages"] if m["role"] == "tool"]
    assert diego_tools[0]["success"] is True and "Blocked until the API contract" in diego_tools[0]["text"]


def test_a_tool_driven_answer_lists_what_the_tool_returned(demo):
    script = [Reply.tools(("c1", "get_entity", json.dumps({"type": "doc", "id": 6}))),
              Reply.plain("You agreed to pair with Ben on the iOS build first [DOC #6].")]
    with FakeLLM(*script) as llm, TestClient(_app(demo, **llm_settings(llm))) as c:
        answer = ask(c, ANA, "what is the weather like?")  # retrieval finds nothing: only the tool has it
    assert answer["llm_used"] is True and answer["citations"] == ["[DOC #6]"]
    # the tool's record is listed: first as an entity when retrieval did not find it, else among the search hits
    shown = [r for r in answer["results"] if (r["source_type"], r["source_id"]) == ("doc", 6)]
    assert shown and (shown[0]["origin"] == "search" or answer["results"][0] is not None and
                      answer["results"][0]["origin"] == "entity")


# --- 3. structured questions ----------------------------------------------------------------------

def test_tracker_questions_offline(offline):
    mine = ask(offline, BEN, "which of my tasks are still in progress?")
    assert mine["route"] == "tasks" and mine["citations"] == ["[TASK #56]", "[TASK #57]", "[TASK #91]"]
    overdue = ask(offline, MARIA, "which tasks are overdue in sprint 4?")
    assert overdue["citations"] == ["[TASK #23]", "[TASK #47]", "[TASK #107]", "[TASK #125]"]
    unassigned = ask(offline, MARIA, "which critical tasks are unassigned?")  # nobody on it: the work waiting
    assert unassigned["citations"] == ["[TASK #42]", "[TASK #130]"]  # #110 and #124 are done
    points = ask(offline, DIEGO, "how many story points are left in Payments Sprint 2?")
    assert points["answer"].startswith("Story points left (in Payments Sprint 2): 10, from 4 task(s)")
    assert points["citations"] == ["[TASK #20]", "[TASK #107]", "[TASK #122]", "[TASK #131]"]
    spanish = ask(offline, DIEGO, "¿cuántas tareas tengo por hacer?")
    assert spanish["answer"].startswith("Tareas (asignadas a ti, por hacer): 4")
    nobody = ask(offline, ANA, "which critical tasks are unassigned?")  # unassigned tasks: managers only
    assert nobody["citations"] == [] and nobody["answer"] == "No task you can see matches: not done, critical, unassigned."


def test_a_negated_tracker_question_is_never_answered_with_its_opposite(offline, demo):
    """Review: "not" is a stop word, so "which of my tasks are not done?" listed Ben's DONE tasks."""
    engine, _ = demo
    open_tasks = ask(offline, BEN, "which of my tasks are not done?")
    assert open_tasks["route"] == "tasks" and open_tasks["citations"]
    assert open_tasks["answer"].startswith("Tasks (assigned to you, not done)")
    cited = [int(a.split("#")[1].rstrip("]")) for a in open_tasks["citations"]]
    assert all(engine.get(TASKS, t)["status"] != "DONE" and engine.get(TASKS, t)["assignee_id"] == BEN for t in cited)
    assert ask(offline, MARIA, "which tasks are not critical?")["route"] == "retrieve"


def test_a_person_by_name_offline_and_through_the_models_find_tasks(demo, offline):
    chen = ask(offline, CHEN, "what is Chen working on?")
    assert chen["route"] == "tasks" and len(chen["citations"]) == 15  # listed; the rest counted:
    assert "Tasks (assigned to you, not done) — 22:" in chen["answer"]  # Chen asks: his own and "…and 7 more." in chen["answer"]
    assert ask(offline, ANA, "what is Chen working on?")["citations"] == []  # not hers to see
    script = [Reply.tools(("c1", "find_tasks", json.dumps({"assignee_name": "chen", "open": True, "limit": 100})),
                          ("c2", "find_tasks", json.dumps({"mine": True, "status": "IN_PROGRESS"}))),
              Reply.plain("Chen has open tasks [TASK #3].")]
    with FakeLLM(*script) as llm, TestClient(_app(demo, **llm_settings(llm))) as c:
        ask(c, MARIA, "what does Chen have on his plate?")
    system = llm.requests[0]["body"]["messages"][0]["content"]
    assert f"Maria Lopez (MANAGER, employee id {MARIA})" in system
    by_name, mine = (json.loads(m["content"]) for m in llm.requests[1]["body"]["messages"] if m["role"] == "tool")
    assert len(by_name["tasks"]) == 22 and {t["assignee_name"] for t in by_name["tasks"]} == {"Chen Wei"}
    assert mine == {"success": True, "tasks": []}  # Maria has no task of her own


# --- 4. the answer gate reads both arms ----------------------------------------------------------

def test_a_right_lexical_hit_is_an_answer(offline):
    answer = ask(offline, ANA, "what did we agree in my 1:1 with Maria?")
    assert answer["citations"] == ["[DOC #6]"] and "pair with Ben on the iOS build first" in answer["answer"]
    doc = next(r for r in answer["results"] if r["source_type"] == "doc" and r["source_id"] == 6)
    assert doc["lexical_rank"] == 1 and doc["distance"] > 0.655  # far by vector: the lexical arm answered


# --- 5. one deadline per turn ----------------------------------------------------------------------

def test_a_follow_up_over_a_hanging_llm_waits_one_deadline_not_two(demo):
    """The old code gave the rewrite and the answer a whole RAG_LLM_TIMEOUT_S each (2 x 3 s); the turn now
    shares one. Lower bounds on time are safe on a busy machine: the turn must end before 2 x 3 s."""
    deadline = 3.0
    with FakeLLM(Reply.plain("Diego [TASK #107]."), Reply.silent()) as llm, \
            TestClient(_app(demo, **llm_settings(llm, llm_timeout_s=deadline))) as c:
        first = ask(c, MARIA, "what is wrong with the login bug on the refund flow?")
        started = time.monotonic()
        follow = ask(c, MARIA, "who is assigned to it?", first["conversation_id"])
        took = time.monotonic() - started
    assert follow["llm_error"] == "timeout" and follow["citations"] == [REFUND_LOGIN]
    assert len(llm.requests) == 3  # the first answer, then the rewrite and the answer of the follow-up
    assert took < 2 * deadline, took


# --- 6. clean citations -------------------------------------------------------------------------------

def test_an_answer_citing_what_it_was_not_given_is_ungrounded_as_a_whole(demo, offline):
    """Issue 23 changed this: Maria's reply used to be cut to "The task [TASK #107] is blocked." and accepted;
    a reply that cites anything it was not given is now ungrounded whole, and the extractive answer stands."""
    reply = "The task [TASK #107] is blocked; see [DOC #5] and [DOC #7]."
    question = "what is blocking the login bug on the refund flow?"
    with FakeLLM(Reply.plain(reply)) as llm, TestClient(_app(demo, **llm_settings(llm))) as c:
        answer = ask(c, ANA, question)
        maria = ask(c, MARIA, question)
    assert answer["llm_error"] == "ungrounded" and answer["llm_used"] is False
    assert "[TASK #107]" not in answer["answer"] and "see and" not in answer["answer"]
    prompt = json.dumps(llm.requests[-1]["body"]["messages"])
    assert "[DOC #7]" not in prompt  # Maria's model was never shown DOC #7: it made it up
    assert maria["llm_error"] == "ungrounded" and maria["llm_used"] is False
    assert maria["answer"] == ask(offline, MARIA, question)["answer"] and "[DOC #7]" not in maria["answer"]


# --- 7. the smaller items ---------------------------------------------------------------------------

def test_a_stream_that_fails_mid_answer_sends_reset_before_the_fallback(demo):
    broken = Reply.stream("Diego ", "is on ", done=False)  # ends without [DONE]: a broken stream
    with FakeLLM(broken) as llm, TestClient(_app(demo, **llm_settings(llm, chat_max_tool_rounds=0))) as c:
        with c.stream("POST", "/api/v1/chat/stream", headers=AUTH, json={
                "employee_id": MARIA, "message": "who fixes the login bug on the refund flow?"}) as response:
            events = _sse(response.iter_lines())
    names = [e for e, _ in events]
    reset_at = names.index("reset")
    assert names[:reset_at] == ["token", "token"] and names[-1] == "done" and names.count("reset") == 1
    assert events[reset_at][1] == {"reason": "llm_error", "llm_error": "bad_response"}
    after = "".join(d["text"] for e, d in events[reset_at + 1:] if e == "token")
    done = events[-1][1]
    assert after == done["answer"] and done["llm_error"] == "bad_response" and REFUND_LOGIN in done["citations"]


def _sse(lines) -> list[tuple[str, dict]]:
    events, name = [], None
    for line in lines:
        if line.startswith("event:"):
            name = line.split(":", 1)[1].strip()
        elif line.startswith("data:") and name:
            events.append((name, json.loads(line.split(":", 1)[1])))
    return events


def test_a_pinned_conversation_leaves_its_project_only_when_unpinned(offline):
    conv = ask(offline, MARIA, "payments risks", rag_scope=2, pinned=True)
    path = f"/api/v1/conversations/{conv['conversation_id']}?employee_id={MARIA}"
    refused = offline.patch(path, json={"rag_scope": "all"}, headers=AUTH)
    assert refused.status_code == 409 and "pinned" in refused.json()["detail"]
    assert offline.get(path, headers=AUTH).json()["rag_scope"] == "2"  # nothing changed
    assert offline.patch(path, json={"rag_scope": "2"}, headers=AUTH).status_code == 200  # its own: fine
    unpinned = offline.patch(path, json={"rag_scope": "all", "pinned": False}, headers=AUTH).json()
    assert (unpinned["rag_scope"], unpinned["pinned_project_id"]) == ("all", None)
    repinned = offline.patch(path, json={"rag_scope": 3, "pinned": True}, headers=AUTH).json()
    assert (repinned["rag_scope"], repinned["pinned_project_id"]) == ("3", 3)
    bad = offline.patch(path, json={"rag_scope": "none", "pinned": True}, headers=AUTH)
    assert bad.status_code == 422


def test_a_summary_is_checked_like_an_answer_and_readable(demo):
    from app.services.summaries import ProjectSummarizer

    engine, settings = demo
    reply = "Payments moves to the new PSP [PROJECT #2]. The refund bug is critical [TASK #99999]."
    with FakeLLM(Reply.plain(reply)) as llm:
        outcomes = ProjectSummarizer(engine, settings.model_copy(update=llm_settings(llm))).refresh([2], force=True)
    assert outcomes[0].status == "written" and outcomes[0].summary == "Payments moves to the new PSP [PROJECT #2]."
    with TestClient(_app(demo)) as c:
        project = c.get("/api/v1/projects/2", headers=AUTH).json()
    assert project["auto_summary"] == "Payments moves to the new PSP [PROJECT #2]." and project["auto_summary_at"]
    assert engine.get(PROJECTS, 2)["name"] == "Payments Platform"


def test_a_conversation_the_client_keeps_gets_the_same_focus_and_rule_and_stores_nothing(demo):
    """What an OpenAI-style face calls: the message list is the memory, nothing is written."""
    import anyio
    import httpx

    from app.services import chat
    from app.services.search import resolve_caller

    engine, settings = demo
    turns = [("user", "what is wrong with the login bug on the refund flow?"),
             ("assistant", "Users are logged out after a password reset [TASK #107] [TASK #92].")]
    before = engine.list_conversations(MARIA, None, 500).total

    async def turn(caller, question):
        async with httpx.AsyncClient() as unused:
            prep = chat.prepare_stateless(engine, settings, caller, turns, question)
            return await chat.chat(engine, settings, prep, unused)

    answer = anyio.run(turn, resolve_caller(engine, MARIA), "who is assigned to it?")
    assert answer.citations == [REFUND_LOGIN] and answer.route == "follow_up" and answer.conversation_id is None
    assert "Assignee: Diego Hernandez" in answer.answer
    assert engine.list_conversations(MARIA, None, 500).total == before
    hidden = anyio.run(turn, resolve_caller(engine, ANA), "who is assigned to it?")  # not hers: no focus
    assert REFUND_LOGIN not in hidden.answer and hidden.route != "follow_up"


def test_a_client_kept_answer_citing_more_than_an_answer_can_is_not_memory(demo):
    """Review: every anchor of a client-kept assistant turn was looked up (memory under the access rule), so
    one 2 MB message list could make a turn load 100,000 entities. No answer of ours cites more than
    MAX_CITATIONS: a turn that does is left out with its question, and nothing of it is looked up."""
    import anyio
    import httpx

    from app.domain import MAX_CITATIONS
    from app.services import chat
    from app.services.search import resolve_caller

    engine, settings = demo
    cited = " ".join(f"[TASK #{i}]" for i in range(1, MAX_CITATIONS + 21))  # all of them Maria may see
    turns = [("user", "list everything you know"), ("assistant", f"Marker-7Q {cited}.")]

    async def turn():
        with FakeLLM(Reply.plain("The refund login bug is Diego's [TASK #107].")) as llm:
            async with httpx.AsyncClient() as client:
                prep = chat.prepare_stateless(engine, settings.model_copy(update=llm_settings(llm)),
                                              resolve_caller(engine, MARIA), turns, "who fixes the refund login bug?")
                answer = await chat.chat(engine, settings.model_copy(update=llm_settings(llm)), prep, client)
        return answer, json.dumps(llm.requests[-1]["body"]["messages"])

    answer, prompt = anyio.run(turn)
    assert answer.llm_used is True and "Marker-7Q" not in prompt and "list everything you know" not in prompt
    assert chat.prepare_stateless(engine, settings, resolve_caller(engine, MARIA), turns, "hi").history == []
