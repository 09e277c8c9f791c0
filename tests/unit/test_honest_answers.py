"""Pure answer logic: the system prompt, the extractive quotes and "I don't know", the two-arm answer
gate, and the follow-up rules (what names a topic, the focused and carried queries)."""

from __future__ import annotations

import datetime as dt

from app.domain import SearchHit
from app.rag import extractive, followup, prompting

LOGIN = ("[TASK #7] Fix login bug on the onboarding screen\n"
         "Status: IN_PROGRESS | Priority: HIGH | Sprint: Mobile Sprint 2\nProject: Mobile App Relaunch\n"
         "Assignee: Ana Garcia\nDue: 2024-06-20\n"
         "Description: Users are logged out after a password reset. Reproduce, add a regression test.\n"
         "Comments:\n- I can reproduce this on staging.\n- Blocked until the API contract is agreed.")
FACTURAS = ("[TASK #9] Corregir error de inicio de sesión en la página de facturas\n"
            "Status: TODO | Priority: LOW | Sprint: none\nProject: Portal de Clientes LATAM\n"
            "Assignee: Diego Hernandez\nDue: 2024-07-01\nDescription: Los usuarios pierden la sesión.")
MAX = 0.67


def hit(content: str, distance: float = 0.3, source_id: int = 7) -> SearchHit:
    return SearchHit("task", source_id, 0, content, distance, 1 - distance)


def test_system_prompt_names_the_asker_the_date_and_the_scope():
    messages = prompting.build_messages(
        "who?", [hit(LOGIN)], asker=prompting.Asker("Ana\nGarcia", "DEVELOPER"), today=dt.date(2024, 6, 3),
        scope=prompting.scope_label(4, "Payments Platform"),
        history=[{"role": "user", "content": "login bug?"}, {"role": "assistant", "content": "[TASK #7]"}])
    system = messages[0]["content"]
    assert "ONLY from the context" in system and "Ana Garcia (DEVELOPER)" in system  # one line, no injected newline
    with_id = prompting.system_prompt(prompting.Asker("Ana Garcia", "DEVELOPER", 2), None, None)
    assert "Ana Garcia (DEVELOPER, employee id 2)" in with_id and '"me"' in with_id
    assert "Monday 2024-06-03" in system and "Payments Platform" in system
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert prompting.scope_label("all") == "All projects" and prompting.scope_label("none").startswith("No project")


def test_context_hits_are_whole_chunks_that_fit():
    hits = [hit("[TASK #%d] " % i + "x" * 100, source_id=i) for i in range(50)]
    assert len(prompting.context_hits(hits, max_chars=350)) == 3
    assert prompting.build_messages("q?", hits, max_chars=350)[1]["content"].count("[TASK #") == 3


def test_who_is_assigned_quotes_the_assignee_line():
    answer = extractive.extractive_answer("who is assigned to the login bug?", [hit(LOGIN)], MAX)
    assert "Assignee: Ana Garcia" in answer and "[TASK #7]" in answer
    assert "Fix login bug on the onboarding screen" in answer and "Status:" not in answer


def test_what_blocks_quotes_the_blocked_comment():
    answer = extractive.extractive_answer("what is blocking the login work?", [hit(LOGIN)], MAX)
    assert "Blocked until the API contract is agreed." in answer and "I can reproduce" not in answer


def test_spanish_question_gets_spanish_framing_and_the_assignee():
    answer = extractive.extractive_answer("¿quién está asignado a la página de facturas?",
                                          [hit(FACTURAS, source_id=9)], MAX)
    assert answer.startswith(extractive.LEAD["es"]) and "Assignee: Diego Hernandez" in answer


def test_i_dont_know_when_no_hit_clears_the_threshold_in_the_questions_language():
    far = [hit(LOGIN, distance=0.9)]
    assert extractive.extractive_answer("who is assigned to the login bug?", far, MAX) == extractive.I_DONT_KNOW["en"]
    assert extractive.extractive_answer("¿quién ganó el mundial?", far, MAX) == extractive.I_DONT_KNOW["es"]
    assert extractive.extractive_answer("what is the login status?", [], MAX) == extractive.I_DONT_KNOW["en"]


def test_a_close_hit_sharing_no_topic_word_is_not_an_answer():
    # MiniLM puts short off-topic Spanish questions near Spanish chunks; a shared topic word decides.
    assert extractive.extractive_answer("¿cuál es la receta de la paella?", [hit(FACTURAS, 0.45)], MAX) == \
        extractive.I_DONT_KNOW["es"]
    # template field names ("status", "assigned") are in every task: sharing only those does not count
    assert extractive.extractive_answer("what is the status of the pizza order?", [hit(LOGIN, 0.4)], MAX) == \
        extractive.I_DONT_KNOW["en"]


def test_one_item_per_entity_and_at_most_three():
    hits = [hit(LOGIN), hit(LOGIN.replace("Ana Garcia", "Ben Carter"))] + \
           [hit(LOGIN.replace("#7", f"#{i}"), source_id=i) for i in range(10, 15)]
    answer = extractive.extractive_answer("who is assigned to the login bug?", hits, MAX)
    assert answer.count("[TASK #7]") == 1 and "Ben Carter" not in answer and answer.count("\n- ") == 3


def test_a_follow_up_names_only_the_field_it_asks_for():
    for question in ("who is assigned to it?", "what is blocking it?", "when is it due?", "¿cuándo vence?",
                     "¿y quién lo tiene?", "and the priority?", "any comments?", "is it done?", "who reviewed it?",
                     "¿está bloqueada?"):
        assert followup.is_follow_up(question), question
    for question in ("what about the checkout page?", "what is wrong with the login bug on the refund flow?",
                     "¿qué pasa con la página de facturas?", "thanks", "who reviewed the payout scheduler?"):
        assert not followup.is_follow_up(question), question


def test_a_follow_up_query_carries_the_focus_or_the_last_question_that_named_a_topic():
    query = followup.focused_query("who is assigned to it?", "Fix login bug on the onboarding screen")
    assert query.startswith("who is assigned to it?")
    assert {"Fix", "login", "bug", "onboarding", "screen"} <= set(query.split())
    carried = followup.carried_query(["What is blocking the login bug on the onboarding screen?",
                                      "who is assigned to it?", "when is it due?"], "is it blocked?")
    assert {"login", "onboarding", "screen"} <= set(carried.split())  # three follow-ups deep, still the topic
    assert followup.carried_query([], "who is assigned?") == "who is assigned?"
    es = followup.carried_query(["¿Qué bloquea la página de facturas?", "¿y los pagos en pesos?"],
                                "¿quién lo tiene asignado?")
    assert es.split()[-2:] == ["pagos", "pesos"] and "los" not in es.split()  # the newest topic, stop words dropped


def test_the_gate_takes_the_lexical_arms_first_hit_when_it_holds_every_topic_word():
    doc = SearchHit("doc", 6, 0, "[DOC #6] 1:1 notes Ana / Maria\nAgreed: pair with Ben on the iOS build first.",
                    0.799, 0.09, vector_rank=4, lexical_rank=1)
    question = "what did we agree in my 1:1 with Maria?"
    assert extractive.relevant(question, [doc], MAX) == [doc]
    second = SearchHit(**{**vars(doc), "lexical_rank": 2})
    assert extractive.relevant(question, [second], MAX) == []  # far, and not the lexical arm's first
    partial = SearchHit(**{**vars(doc), "content": "[DOC #6] notes with Maria"})
    assert extractive.relevant(question, [partial], MAX) == []  # first, but without "agree"


def test_an_entity_asked_for_is_quoted_for_what_was_asked_or_its_main_fields():
    task = hit(LOGIN)
    assert "Blocked until the API contract is agreed." in extractive.entity_answer("what is blocking task 7?", [task])
    status = extractive.entity_answer("what is the status of task 7?", [task])
    assert "Status: IN_PROGRESS" in status and "[TASK #7]" in status and "Blocked" not in status
    plain = extractive.entity_answer("task 7", [task])
    assert "Status: IN_PROGRESS" in plain and "Assignee: Ana Garcia" in plain and "Due: 2024-06-20" in plain
    gone = extractive.entity_answer("¿cuál es el estado de la tarea 9?", [], ["task #9"])
    assert gone == "No encuentro task #9 entre lo que puedes ver."


def test_condensation_prompt_keeps_the_newest_turns():
    history = [{"role": "user", "content": f"old question {i} " + "x" * 50} for i in range(200)] + \
              [{"role": "assistant", "content": "The login bug [TASK #7] is blocked."}]
    system, user = followup.condensation_messages(history, "who is assigned to it?", max_chars=500)
    assert "standalone search query" in system["content"]
    assert "Assistant: The login bug [TASK #7] is blocked." in user["content"]
    assert "old question 199" in user["content"] and "old question 0 " not in user["content"]
    assert user["content"].endswith("Last question: who is assigned to it?") and len(user["content"]) < 700


def test_the_history_a_prompt_carries_is_bounded_newest_first_and_starts_with_a_question():
    turns = [{"role": "user" if i % 2 == 0 else "assistant", "content": f"turn {i} " + "x" * 3_000} for i in range(8)]
    kept = prompting.recent_history(turns, max_chars=10_000, max_turn_chars=4_000)
    assert [t["content"][:6] for t in kept] == ["turn 6", "turn 7"]  # turns 5..7 fit; 5 is an answer without its question
    huge = [{"role": "user", "content": "q " + "y" * 100_000}, {"role": "assistant", "content": "a " + "z" * 100_000}]
    cut = prompting.recent_history(huge)
    assert [len(t["content"]) for t in cut] == [prompting.MAX_TURN_CHARS] * 2 and cut[0]["content"].endswith("…")
    assert sum(len(t["content"]) for t in cut) <= prompting.MAX_HISTORY_CHARS
    assert prompting.recent_history(turns[:2]) == turns[:2]  # short histories pass unchanged
