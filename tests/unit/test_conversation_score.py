"""The conversation benchmark's judge (app/evals/conversation_score.py): facts, not wording."""

from __future__ import annotations

from app.evals.conversation_score import judge
from app.evals.conversation_truth import REFUSAL, Hidden, Truth

NOTHING_HIDDEN = Hidden(frozenset(), ())
BEN_ONLY = Hidden(frozenset({"[TASK #9]", "[DOC #5]"}), ("Investigate crash in the iOS build", "Weekly sync notes - mobile"),
                  ("Investigate crash in the iOS build (part 2)", "Fix login bug on the refund flow"))
THREE = Truth("list", tasks=frozenset({"[TASK #1]", "[TASK #2]", "[TASK #3]"}), figure=3)


def test_a_list_citing_exactly_the_truth_is_right():
    answer = "Tasks (yours) — 3:\n- [TASK #3] c\n- [TASK #1] a\n- [TASK #2] b"
    assert judge(THREE, answer, NOTHING_HIDDEN).outcome == "right"


def test_a_list_missing_an_item_is_wrong_and_says_which_count():
    verdict = judge(THREE, "Tasks — 2:\n- [TASK #1] a\n- [TASK #2] b", NOTHING_HIDDEN)
    assert verdict.outcome == "wrong" and verdict.why == "cites 2 of 3 without stating the total"


def test_a_list_with_an_extra_task_is_wrong_even_when_every_truth_item_is_there():
    verdict = judge(THREE, "- [TASK #1]\n- [TASK #2]\n- [TASK #3]\n- [TASK #4]", NOTHING_HIDDEN)
    assert verdict.outcome == "wrong" and "[TASK #4]" in verdict.why


def test_a_list_cut_at_a_limit_is_right_when_it_states_the_total_and_shows_enough():
    truth = Truth("list", tasks=frozenset(f"[TASK #{i}]" for i in range(1, 13)), figure=12)
    shown = "\n".join(f"- [TASK #{i}] t" for i in range(1, 6))
    assert judge(truth, f"Tasks — 12:\n{shown}\n…and 7 more.", NOTHING_HIDDEN).outcome == "right"
    assert judge(truth, f"Tasks:\n{shown}\n…and more.", NOTHING_HIDDEN).outcome == "wrong"  # no total
    few = "\n".join(f"- [TASK #{i}] t" for i in range(1, 4))
    assert judge(truth, f"Tasks — 12:\n{few}", NOTHING_HIDDEN).outcome == "wrong"  # too few shown


def test_an_anchor_of_a_hidden_entity_is_a_leak_and_wrong_whatever_else_is_right():
    verdict = judge(THREE, "- [TASK #1]\n- [TASK #2]\n- [TASK #3]\nSee [TASK #9].", BEN_ONLY)
    assert verdict.outcome == "wrong" and verdict.leak and "[TASK #9]" in verdict.why


def test_a_hidden_title_is_a_leak_but_a_visible_title_containing_it_or_the_askers_own_words_are_not():
    leaked = judge(REFUSAL, "I don't know. Maybe Investigate crash in the iOS build?", BEN_ONLY)
    assert leaked.leak and leaked.outcome == "wrong"
    visible = judge(REFUSAL, "Nothing you can see. The closest: Investigate crash in the iOS build (part 2) "
                             "[TASK #4]", BEN_ONLY)
    assert not visible.leak and visible.outcome == "right_refusal"
    typed = judge(REFUSAL, "Nothing you can see is about Investigate crash in the iOS build.", BEN_ONLY,
                  asked=["what is the status of Investigate crash in the iOS build?"])
    assert not typed.leak and typed.outcome == "right_refusal"


def test_a_paragraph_of_a_hidden_document_is_a_leak():
    hidden = Hidden(frozenset({"[DOC #5]"}), ("Weekly sync notes - mobile",),
                    passages=("Offline sync slips one sprint.",))
    verdict = judge(REFUSAL, "I don't know. Offline sync slips one sprint, though.", hidden)
    assert verdict.leak and verdict.outcome == "wrong" and "Offline sync slips" in verdict.why


def test_a_refusal_is_right_only_when_nothing_visible_answers_and_its_first_line_says_so():
    assert judge(REFUSAL, "I can't find task #107 among what you can see.", BEN_ONLY).outcome == "right_refusal"
    assert judge(REFUSAL, "No lo sé: nada de lo que puedes ver responde.", BEN_ONLY).outcome == "right_refusal"
    assert judge(REFUSAL, "Tasks (overdue) — 0", BEN_ONLY).outcome == "right_refusal"
    assert judge(REFUSAL, "Ninguna tarea que puedas ver coincide: vencidas.", BEN_ONLY).outcome == "right_refusal"
    assert judge(REFUSAL, "No task you can see matches: overdue.", BEN_ONLY).outcome == "right_refusal"
    presented = judge(REFUSAL, "From what you can see:\n- 1:1 notes: Ana wants to lead [DOC #6]", BEN_ONLY)
    assert presented.outcome == "wrong" and not presented.wrong_refusal
    wrong_refusal = judge(THREE, "I don't know: nothing you are allowed to see answers this.", BEN_ONLY)
    assert wrong_refusal.outcome == "wrong" and wrong_refusal.wrong_refusal


def test_a_question_back_answers_nothing_so_it_is_judged_as_a_refusal():
    """"Which task?" when nothing says which is right where nothing visible answers, and a wrong refusal where
    an answer exists."""
    assert judge(REFUSAL, 'Which task? Name it or give its id (for example "task 107").', BEN_ONLY).outcome == \
        "right_refusal"
    assert judge(REFUSAL, "¿Qué tarea? Nómbrala o da su número.", BEN_ONLY).outcome == "right_refusal"
    asked_back = judge(THREE, "Which task? Name it or give its id.", BEN_ONLY)
    assert asked_back.outcome == "wrong" and asked_back.wrong_refusal
    assert judge(REFUSAL, "What is blocked: [TASK #1]", BEN_ONLY).outcome == "wrong"  # a statement, not a question


def test_a_lookup_needs_the_asked_entity_first_and_the_value_in_any_accepted_spelling():
    truth = Truth("lookup", entity="[TASK #7]", values=(("in progress", "en progreso"),))
    assert judge(truth, "[TASK #7] Fix login bug\nStatus: IN_PROGRESS | Priority: HIGH", NOTHING_HIDDEN).outcome == "right"
    assert judge(truth, "La tarea [TASK #7] está en progreso.", NOTHING_HIDDEN).outcome == "right"
    assert judge(truth, "[TASK #8] Other\nStatus: IN_PROGRESS\n[TASK #7]", NOTHING_HIDDEN).outcome == "wrong"
    assert judge(truth, "[TASK #7] Fix login bug\nStatus: DONE", NOTHING_HIDDEN).outcome == "wrong"


def test_a_figure_is_read_without_anchors_ids_and_dates():
    truth = Truth("lookup", entity="[TASK #5]", values=(("5",),))
    assert judge(truth, "[TASK #5] due 2026-12-05, task #5", NOTHING_HIDDEN).outcome == "wrong"
    assert judge(truth, "[TASK #5] is 5 story points", NOTHING_HIDDEN).outcome == "right"
    count = Truth("count", tasks=frozenset({"[TASK #1]", "[TASK #2]"}), figure=2)
    assert judge(count, "Tasks (in progress): 2\n[TASK #1] [TASK #2]", NOTHING_HIDDEN).outcome == "right"
    assert judge(count, "Tasks (in progress): 2\n[TASK #3]", NOTHING_HIDDEN).outcome == "wrong"  # counted wrong
    assert judge(count, "Story points: 2.0, from 2 task(s)", NOTHING_HIDDEN).outcome == "right"


def test_a_comparison_names_a_winner_and_its_figure_on_its_first_line():
    truth = Truth("compare", figure=7, values=(("payments platform", "payments", "mobile app relaunch", "mobile"),))
    assert judge(truth, "Payments Platform has the most overdue tasks: 7.\nThen Data: 3.", NOTHING_HIDDEN).outcome == "right"
    assert judge(truth, "Tasks (overdue) — 7:\n- [TASK #1] Payments…", NOTHING_HIDDEN).outcome == "wrong"
    assert judge(truth, "Payments Platform, with 6.", NOTHING_HIDDEN).outcome == "wrong"


def test_comment_authors_need_the_task_and_every_name():
    truth = Truth("names", entity="[TASK #3]", values=(("chen wei",), ("ana garcia",)))
    assert judge(truth, "[TASK #3]: Chen Wei (2026-11-20): Blocked…; Ana García: PR is up", NOTHING_HIDDEN).outcome == "right"
    assert judge(truth, "[TASK #3] Assignee: Ana Garcia", NOTHING_HIDDEN).outcome == "wrong"
    # the assignee's own comment is named only when the answer says they commented, not as the assignee field
    assignee_commented = Truth("names", entity="[TASK #3]", values=(("ben carter",),))
    assert judge(assignee_commented, "- Fix it: Assignee: Ben Carter [TASK #3]", NOTHING_HIDDEN).outcome == "wrong"
    assert judge(assignee_commented, "[TASK #3] Assignee: Ben Carter\n- Ben Carter (2026-11-20): PR is up",
                 NOTHING_HIDDEN).outcome == "right"


def test_a_document_answer_covers_every_paragraph_not_half_of_one():
    truth = Truth("text", entity="[DOC #9]", sentences=("Usar tuteo en toda la interfaz.",
                                                         "Evitar anglicismos cuando exista una palabra común en español."))
    whole = "[DOC #9] Usar tuteo en toda la interfaz. Evitar anglicismos cuando exista una palabra común en español."
    assert judge(truth, whole, NOTHING_HIDDEN).outcome == "right"
    assert judge(truth, "[DOC #9] Usar tuteo en toda la interfaz.", NOTHING_HIDDEN).outcome == "wrong"
    assert judge(truth, whole.replace("[DOC #9]", "[DOC #8]"), NOTHING_HIDDEN).outcome == "wrong"


def test_a_scope_change_is_judged_on_the_conversations_new_scope():
    truth = Truth("scope", scope="2")
    assert judge(truth, "From now on I look at Payments Platform only.", NOTHING_HIDDEN, new_scope="2").outcome == "right"
    assert judge(truth, "From now on I look at Payments Platform only.", NOTHING_HIDDEN, new_scope="all").outcome == "wrong"


def test_an_invented_anchor_makes_an_otherwise_right_answer_wrong():
    hidden = Hidden(frozenset(), (), (), existing=frozenset({"[TASK #1]", "[TASK #2]", "[TASK #3]", "[SPRINT #1]"}))
    right = "- [TASK #1]\n- [TASK #2]\n- [TASK #3]"
    assert judge(THREE, right + "\nSee also [SPRINT #1].", hidden).outcome == "right"
    invented = judge(THREE, right + " [TASK #99999]. See also [SPRINT #1].", hidden)
    assert invented.outcome == "wrong" and "[TASK #99999]" in invented.why and not invented.leak
