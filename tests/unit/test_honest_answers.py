"""Pure answer logic: the system prompt, the extractive quotes and "I don't know", the two-arm answer
gate, and the follow-up rules (what names a topic, the focused and carried queries)."""

from __future__ import annotations

import datetime as dt

from app.domain import SearchHit
from app.rag import extractive, followup, prompting, terms

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


def test_a_task_keeps_its_status_line_beside_its_sentences():
    """Issue 23: "who is assigned…" quoted the Assignee line alone; a task now always says its status, assignee and
    due date, then whole sentences (a field the question names, like the priority, joins the status line)."""
    answer = extractive.extractive_answer("who is assigned to the login bug?", [hit(LOGIN)], MAX)
    assert answer == ("From what you can see:\n- Fix login bug on the onboarding screen [TASK #7]: Status: IN_PROGRESS; "
                      "Assignee: Ana Garcia; Due: 2024-06-20 — Users are logged out after a password reset.")
    priority = extractive.extractive_answer("what is the priority of the login bug?", [hit(LOGIN)], MAX)
    assert "Due: 2024-06-20; Priority: HIGH —" in priority


def by_shared_words(question):
    """A stand-in for the model's similarity, for pure tests: the share of the question's stems a sentence has."""
    wanted = {terms.stem(w) for w in terms.key_terms(question)}
    return lambda sentences: [len(wanted & {terms.stem(w) for w in terms.words(s)}) / len(wanted) for s in sentences]


def test_sentences_are_chosen_by_their_similarity_and_quoted_whole():
    question = "can someone reproduce the login problem on staging?"
    answer = extractive.extractive_answer(question, [hit(LOGIN)], MAX, by_shared_words(question))
    assert "I can reproduce this on staging." in answer and "Blocked until" not in answer
    assert "Users are logged out" not in answer  # past the margin below the best sentence
    never = extractive.extractive_answer(question, [hit(LOGIN)], MAX, lambda sentences: [0.0] * len(sentences))
    assert "I can reproduce" not in never and "Users are logged out after a password reset." in never  # floor


def test_what_blocks_quotes_the_blocked_comment():
    answer = extractive.extractive_answer("what is blocking the login work?", [hit(LOGIN)], MAX)
    assert "Blocked until the API contract is agreed." in answer and "I can reproduce" not in answer


def test_spanish_question_gets_spanish_framing_and_the_assignee():
    answer = extractive.extractive_answer("¿quién está asignado a la página de facturas?",
                                          [hit(FACTURAS, source_id=9)], MAX)
    assert answer.startswith(extractive.LEAD["es"]) and "Responsable: Diego Hernandez" in answer
    assert "Estado: TODO" in answer and "Vence: 2024-07-01" in answer


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


def test_one_item_per_entity_every_one_about_the_question_up_to_a_bound():
    """Issue 23: "who is working on the refund flow" named 3 of its 6 tasks (at most three items). Every entity
    about the question is listed, up to MAX_ITEMS, then how many more."""
    hits = [hit(LOGIN), hit(LOGIN.replace("Ana Garcia", "Ben Carter"))] + \
           [hit(LOGIN.replace("#7", f"#{i}"), source_id=i) for i in range(10, 15)]
    answer = extractive.extractive_answer("who is assigned to the login bug?", hits, MAX)
    assert answer.count("[TASK #7]") == 1 and "Ben Carter" not in answer and answer.count("\n- ") == 6
    many = [hit(LOGIN.replace("#7", f"#{i}"), source_id=i) for i in range(10, 10 + extractive.MAX_ITEMS + 4)]
    listed = extractive.extractive_answer("who is assigned to the login bug?", many, MAX)
    assert listed.count("\n- ") == extractive.MAX_ITEMS and listed.endswith(f"…and 4 more ({extractive.MAX_ITEMS + 4} in all).")


def test_an_item_whose_title_names_the_topic_goes_before_one_that_only_mentions_it():
    doc = SearchHit("doc", 3, 0, "[DOC #3] Release process\nReleases happen every second Thursday.\n\n"
                    "Freeze on Tuesday.", 0.46, 0.5)
    sprint = SearchHit("sprint", 4, 0, "[SPRINT #4] Payments Sprint 2 (ACTIVE)\nProject: Payments Platform\n"
                       "Dates: 2026-11-26 -> 2026-12-09\nGoal: Harden, test and prepare the release", 0.5, 0.4)
    answer = extractive.extractive_answer("summarise the release plan", [sprint, doc], MAX)
    assert answer == ("From what you can see:\n- Release process [DOC #3]: Releases happen every second Thursday. "
                      "Freeze on Tuesday.")  # a short document whole, and the sprint is not about it


def test_nothing_covering_the_question_is_said_first_in_both_languages():
    notes = SearchHit("doc", 6, 0, "[DOC #6] 1:1 notes Ana / Maria\nAna wants to lead the offline sync design.",
                      0.48, 0.5)
    project = SearchHit("project", 1, 0, "[PROJECT #1] Mobile App Relaunch (ACTIVE)\nDates: 2026-09-02 -> "
                        "2027-04-30\nDescription: Rebuild the mobile app.", 0.53, 0.4)
    answer = extractive.extractive_answer("what was decided in the weekly mobile sync?", [notes, project], MAX)
    assert answer.splitlines()[0] == "Nothing you can see is about the weekly mobile sync; the closest:"
    assert "[DOC #6]" in answer and "[PROJECT #1]" in answer
    es = extractive.extractive_answer("¿qué se decidió en la reunión semanal de móvil?",
                                      [SearchHit("doc", 6, 0, "[DOC #6] Notas\nLa reunión de pagos fue breve.",
                                                 0.4, 0.5), SearchHit("project", 1, 0, "[PROJECT #1] App móvil", 0.5,
                                                                      0.4)], MAX)
    assert es.startswith("Nada de lo que puedes ver trata de la reunión semanal de móvil; lo más cercano:")
    # A word no visible chunk uses ("decided", "summarise") cannot be checked: it does not make a refusal.
    weekly = SearchHit("doc", 5, 0, "[DOC #5] Weekly sync notes - mobile\nOffline sync slips one sprint.", 0.35, 0.6)
    assert extractive.extractive_answer("what was decided in the weekly mobile sync?", [weekly, notes],
                                        MAX).startswith(extractive.LEAD["en"])


def test_words_no_visible_record_uses_that_outnumber_the_known_ones_are_what_nothing_is_about():
    """"la integración con blockchain": the one known word is not the subject; an odd unknown word beside three
    known ones ("synchronous" against "asynchronous") is outnumbered, and the record answers."""
    banco = SearchHit("doc", 8, 0, "[DOC #8] Notas de la reunión\nRiesgo: la integración con el banco local.", 0.6, 0.4)
    answer = extractive.extractive_answer("¿qué se decidió sobre la integración con blockchain?", [banco], MAX)
    assert answer.startswith("Nada de lo que puedes ver trata de la integración con blockchain; lo más cercano:")
    assert "[DOC #8]" in answer
    psp = SearchHit("doc", 4, 0, "[DOC #4] PSP migration\nWe move to the new PSP. Refunds are asynchronous.", 0.3, 0.6)
    assert extractive.extractive_answer("are refunds synchronous with the new PSP?", [psp],
                                        MAX).startswith(extractive.LEAD["en"])


def test_both_arms_first_hit_missing_one_of_three_known_words_covers_the_question():
    guide = SearchHit("doc", 1, 0, "[DOC #1] Engineering onboarding guide\nWelcome to the team.\n\nClone the "
                      "monorepo, run `make run`.", 0.4, 0.6, vector_rank=1, lexical_rank=1)
    task = SearchHit("task", 133, 0, "[TASK #133] Migrate the iOS build to the new API\nStatus: TODO", 0.6, 0.3,
                     vector_rank=2, lexical_rank=2)
    question = "what should a new developer run after cloning the monorepo?"
    assert extractive.extractive_answer(question, [guide, task], MAX).startswith(extractive.LEAD["en"])
    second = SearchHit(**{**vars(guide), "vector_rank": 2})  # first in one arm only: not enough
    assert extractive.extractive_answer(question, [second, task], MAX).startswith("Nothing you can see is about")


def test_a_title_nothing_visible_is_about_is_said_first_whatever_the_hits_cover():
    crash = SearchHit("task", 108, 0, "[TASK #108] Investigate crash in the sales dashboard\nStatus: TODO", 0.3, 0.6)
    answer = extractive.extractive_answer("who is assigned to Investigate crash in the checkout page?", [crash], MAX,
                                          not_about="Investigate crash in the checkout page")
    assert answer.splitlines()[0] == ("Nothing you can see is about Investigate crash in the checkout page; "
                                      "the closest:") and "[TASK #108]" in answer


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


def test_the_answer_speaks_the_askers_language_when_the_query_is_a_rewrite():
    """A Spanish follow-up rewritten by an LLM as an English search query is still answered in Spanish."""
    rewrite = "who is assigned to the login bug on the onboarding screen"
    assert extractive.extractive_answer(rewrite, [hit(LOGIN)], MAX, lang="es").startswith(extractive.LEAD["es"])
    assert extractive.extractive_answer(rewrite, [], MAX, lang="es") == extractive.I_DONT_KNOW["es"]


def test_a_question_joining_two_topics_is_covered_when_each_is():
    refund = SearchHit("task", 23, 0, "[TASK #23] Add monitoring alerts for the refund flow\nStatus: TODO", 0.4, 0.5)
    checkout = SearchHit("task", 50, 0, "[TASK #50] Add unit tests for the checkout page\nStatus: TODO", 0.45, 0.4)
    both = extractive.extractive_answer("what is happening with the refund flow and the checkout page?",
                                        [refund, checkout], MAX)
    assert both.startswith(extractive.LEAD["en"]) and "[TASK #23]" in both and "[TASK #50]" in both
    one = extractive.extractive_answer("what is happening with the refund flow and the payout scheduler?",
                                       [refund, checkout, SearchHit("doc", 2, 0, "[DOC #2] Payouts run nightly.", 0.5,
                                                                    0.3),
                                        SearchHit("doc", 3, 0, "[DOC #3] The report scheduler lives in cron.", 0.5, 0.2)],
                                       MAX)  # "payout" and "scheduler" each visible, never together
    assert one.startswith("Nothing you can see is about the payout scheduler; the closest:")


def test_a_records_words_hold_their_singular_and_their_ing_form():
    stems = terms.text_stems("Ana wants to lead. Clone the monorepo.")
    assert {terms.stem("want"), terms.stem("cloning"), terms.stem("wants"), terms.stem("Clone")} <= stems
