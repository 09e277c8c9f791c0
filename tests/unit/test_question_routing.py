"""Pure conversation logic: ids in text, tracker questions (English and Spanish), where a question is
routed, the answer to a tracker question, clean citations, and demo dates relative to the day seeded."""

from __future__ import annotations

import datetime as dt
import re
import signal
from contextlib import contextmanager

import pytest

from app import demo_data
from app.domain import Named, Person, Vocabulary
from app.rag import citations, refs, routing, task_answers, task_questions

TODAY = dt.date(2026, 12, 2)  # a Wednesday
NAMES = Vocabulary(
    people=(Person(1, "Maria", "Lopez"), Person(2, "Ana", "Garcia"), Person(4, "Chen", "Wei"),
            Person(9, "Ana", "Ruiz")),
    projects=(Named(1, "Mobile App Relaunch"), Named(2, "Payments Platform"), Named(4, "Portal de Clientes LATAM")),
    sprints=(Named(3, "Payments Sprint 1", 2), Named(4, "Payments Sprint 2", 2), Named(7, "Portal Iteración 1", 4)))


@pytest.mark.parametrize("text, found", [
    ("what is the status of task 107?", [("task", 107)]),
    ("status of TASK #107 and [DOC #6]", [("task", 107), ("doc", 6)]),
    ("#107?", [("task", 107)]),
    ("¿cuál es el estado de la tarea 107?", [("task", 107)]),
    ("documento 6 y doc 6", [("doc", 6)]),
    ("sprint 3 and project no. 2", [("sprint", 3), ("project", 2)]),
    ("my 1:1 with Maria, p95 of 2.3 s", []),
    ("task 0 and task 99999999999999999999", []),  # not an id: zero, or past 64 bits
    ("issue#12 and &#35;", [("task", 12)]),
    # A number alone where a chat writes a task's: after "la" (la tarea) or a preposition, ending the question.
    ("¿cómo va la 112?", [("task", 112)]), ("estado de la 17", [("task", 17)]), ("deadline for 120?", [("task", 120)]),
    ("who's on 39?", [("task", 39)]), ("what's 56 estimated at?", [("task", 56)]),
    ("who is doing 120?", [("task", 120)]), ("how many points is 17 worth?", [("task", 17)]),
    # ... but not a count, a time or a date.
    ("due in 3 days", []), ("¿qué vence la 5 de enero?", []), ("the top 5 of 10 people", []),
    ("what is the roadmap for 2026?", []), ("el presupuesto de 2025", []), ("status of #2026?", [("task", 2026)]),
])
def test_ids_in_text(text, found):
    assert refs.mentions(text) == found


def test_a_sprint_name_ending_in_a_number_is_not_an_id():
    text = "how many story points are left in payments sprint 2?"
    assert refs.mentions(text) == [("sprint", 2)]
    assert refs.mentions(text, masked=task_questions.name_spans(text, NAMES)) == []


@pytest.mark.parametrize("question, expected", [
    ("which of my tasks are still in progress?", dict(mine=True, status="IN_PROGRESS")),
    ("¿cuáles de mis tareas siguen en progreso?", dict(mine=True, status="IN_PROGRESS", lang="es")),
    ("which tasks are overdue in sprint 3?", dict(overdue=True, sprint=Named(3, "Payments Sprint 1", 2))),
    ("which critical tasks are unassigned?", dict(priority="CRITICAL", unassigned=True)),
    ("how many story points are left in Payments Sprint 2?",
     dict(aggregate="points", open_only=True, sprint=Named(4, "Payments Sprint 2", 2))),
    ("what is Chen working on?", dict(people=(Person(4, "Chen", "Wei"),), open_only=True)),
    ("¿en qué está trabajando Chen?", dict(people=(Person(4, "Chen", "Wei"),), open_only=True, lang="es")),
    ("¿cuántas tareas críticas hay sin asignar?", dict(aggregate="count", priority="CRITICAL", unassigned=True,
                                                       lang="es")),
    ("tareas vencidas del proyecto Portal de Clientes LATAM",
     dict(overdue=True, project=Named(4, "Portal de Clientes LATAM"), lang="es")),
    ("what tasks are due this week?", dict(due=(dt.date(2026, 11, 30), dt.date(2026, 12, 7)), due_label="this week")),
    ("¿qué tareas vencen mañana?", dict(due=(dt.date(2026, 12, 3), dt.date(2026, 12, 4)), due_label="mañana",
                                        lang="es")),
    ("show me the high priority tasks in the payments project", dict(priority="HIGH",
                                                                     project=Named(2, "Payments Platform"))),
    ("which tasks does Ana have?", dict(people=(Person(2, "Ana", "Garcia"), Person(9, "Ana", "Ruiz")))),
    ("which tasks does Ana Ruiz have?", dict(people=(Person(9, "Ana", "Ruiz"),))),
    # A negation that means "open" is understood, never dropped ("not done" is not DONE).
    ("which of my tasks are not done?", dict(mine=True, open_only=True)),
    ("which tasks aren't finished?", dict(open_only=True)),
    ("¿qué tareas no están terminadas?", dict(open_only=True, lang="es")),
    # A count of a status counts tasks though no noun says so; what someone holds is all their tasks.
    ("how many in review in Payments Platform?", dict(aggregate="count", status="IN_REVIEW",
                                                      project=Named(2, "Payments Platform"))),
    ("¿cuántas hay terminadas?", dict(aggregate="count", status="DONE", lang="es")),
    ("what's assigned to Chen?", dict(people=(Person(4, "Chen", "Wei"),))),
    ("¿qué tiene Chen?", dict(people=(Person(4, "Chen", "Wei"),), lang="es")),
    ("my done stuff", dict(mine=True, status="DONE")),
    ("¿voy tarde con algo?", dict(mine=True, overdue=True, lang="es")),
    ("lo mío terminadas", dict(mine=True, status="DONE", lang="es")),
    ("todo lo de Chen", dict(people=(Person(4, "Chen", "Wei"),), lang="es")),
    ("has Chen missed any deadlines?", dict(people=(Person(4, "Chen", "Wei"),), overdue=True)),
])
def test_tracker_questions_parse(question, expected):
    parsed = task_questions.parse(question, NAMES, TODAY)
    assert parsed is not None, question
    defaults = task_questions.TaskQuestion(lang=expected.get("lang", "en"))
    for field, value in vars(defaults).items():
        if field != "words":
            assert getattr(parsed, field) == expected.get(field, value), (question, field)


def test_names_with_punctuation_accents_and_possessives_are_found():
    """Names are searched for only when each of their words is in the question (the directory can be
    10,000 people); a hyphen, an apostrophe, accents or brackets in a name must not hide it."""
    names = Vocabulary(people=(Person(10, "Jean-Luc", "O'Brien"), Person(11, "José", "Núñez")),
                       projects=(Named(5, "Checkout v2.0 (EU)"),), sprints=(Named(9, "Checkout v2.0 (EU) Sprint 1", 5),))
    jean_luc, jose = names.people
    assert task_questions.parse("what is Jean-Luc working on?", names, TODAY).people == (jean_luc,)
    assert task_questions.parse("O'Brien's tasks", names, TODAY).people == (jean_luc,)
    assert task_questions.parse("tareas de jose nunez", names, TODAY).people == (jose,)
    assert task_questions.parse("tasks in Checkout v2.0 (EU)", names, TODAY).project == names.projects[0]
    assert task_questions.parse("overdue tasks in checkout v2.0 (eu) sprint 1", names, TODAY).sprint == names.sprints[0]


@pytest.mark.parametrize("question", [
    "fix the login bug on the refund flow", "who is assigned to the payroll export failure?",
    "what is the status of task 107?", "which tasks are about the refund flow?", "tasks",
    "what did we agree in my 1:1 with Maria?", "how many approvals does payments code need in code review?",
    "¿cuántos días de vacaciones me quedan este año?", "what is the goal of Payments Sprint 2?",
    # Negations no filter expresses: retrieval reads them, a task list would answer the opposite.
    "which tasks are not critical?", "which tasks are not overdue?", "tasks that are not in progress",
    "my tasks that are not in review", "tasks not assigned to me", "¿qué tareas no son críticas?",
])
def test_anything_else_is_left_to_retrieval(question):
    assert task_questions.parse(question, NAMES, TODAY) is None


@pytest.mark.parametrize("question, focus, kind", [
    ("what is the status of task 107?", ("task", 55), "lookup"),
    ("which tasks are overdue in sprint 3?", ("task", 55), "tasks"),
    ("is it overdue?", ("task", 55), "follow_up"),
    ("is it overdue?", None, "clarify"),  # "it" without a focus: which task? (issue 23)
    ("when is it due?", ("task", 55), "follow_up"),
    ("¿y quién lo tiene?", ("task", 55), "follow_up"),
    ("list my tasks", ("task", 55), "tasks"),
    ("what about the checkout page?", ("task", 55), "retrieve"),
    ("when is it due?", None, "clarify"),
    ("what is the goal of Payments Sprint 2?", None, "retrieve"),
    # "there" and "this" that point at no earlier answer do not make a tracker question about the focus.
    ("which tasks are due this week?", ("task", 55), "tasks"),
    ("how many tasks are there?", ("task", 55), "tasks"),
    ("are there any open tasks?", ("task", 55), "tasks"),
    ("is there any task due today?", ("task", 55), "tasks"),
    ("is that task overdue?", ("task", 55), "follow_up"),
    ("is there a blocker?", ("task", 55), "blockers"),  # the focus's blockers: its comments and description
    # A pronoun joined to a Spanish verb points back too; a card asked by id stays a card.
    ("¿y para cuándo hay que entregarla?", ("task", 55), "follow_up"),
    ("show me #57", None, "lookup"),
    ("¿qué le han asignado a Chen?", None, "tasks"),  # "le" beside a name is not "it"
    ("stick to Payments Platform for now", None, "scope"),
    ("de momento solo Payments Platform", None, "scope"),
    ("mira todo de nuevo", ("task", 55), "scope"),
    ("all projects please", ("task", 55), "scope"),
    ("let's focus on Payments Platform only", None, "scope"),
    ("what should we focus on in the payments project?", None, "retrieve"),
    ("¿fecha límite?", ("task", 55), "follow_up"),
    ("¿quién escribió en ella?", ("task", 55), "comments"), ("¿otros que hayan comentado?", ("task", 55), "comments"),
    ("and the assignee?", ("task", 55), "follow_up"),  # a field after "and": of what was just said
    ("who's doing it?", ("task", 55), "follow_up"),
    ("¿para cuándo?", None, "clarify"),  # a field alone, with nothing said before: which task?
])
def test_routes(question, focus, kind):
    route = routing.route(question, focus, NAMES, TODAY)
    assert route.kind == kind
    if kind == "follow_up":
        assert route.refs == (focus,)


def test_tracker_answers_list_count_and_sum_with_their_anchors():
    rows = [{"task_id": 12, "title": "Fix login", "status": "IN_PROGRESS", "priority": "HIGH", "sprint_name": "S2",
             "assignee_name": "Ana Garcia", "expected_end_date": dt.date(2026, 12, 9), "story_points": 5.0},
            {"task_id": 30, "title": "Docs", "status": "TODO", "priority": "LOW", "sprint_name": None,
             "assignee_name": None, "expected_end_date": None, "story_points": None}]
    listed = task_answers.answer(task_questions.parse("which tasks are in progress?", NAMES, TODAY), rows)
    assert listed.splitlines() == ["Tasks (in progress) — 2:",
                                   "- [TASK #12] Fix login — IN_PROGRESS, HIGH, due 2026-12-09, S2, Ana Garcia",
                                   "- [TASK #30] Docs — TODO, LOW, unassigned"]
    count = task_answers.answer(task_questions.parse("¿cuántas tareas críticas hay?", NAMES, TODAY), rows)
    assert count == "Tareas (críticas): 2 — [TASK #12], [TASK #30]."
    points = task_answers.answer(task_questions.parse("how many story points are left in Payments Sprint 2?",
                                                      NAMES, TODAY), rows)
    assert points == ("Story points left (in Payments Sprint 2): 5, from 2 task(s): [TASK #12] 5, [TASK #30] -. "
                      "(1 of them have no estimate)")
    none = task_answers.answer(task_questions.parse("which critical tasks are unassigned?", NAMES, TODAY), [])
    assert none == "No task you can see matches: critical, unassigned."
    two_anas = task_questions.parse("which tasks does Ana have?", NAMES, TODAY)
    assert task_answers.ambiguous_person(two_anas) == (
        "Which one do you mean: Ana Garcia (#2) / Ana Ruiz (#9)? Ask again with the full name.")


@pytest.mark.parametrize("answer, citable, cleaned, grounded", [
    ("task [TASK #107] is blocked; see [DOC #5] and [DOC #7].", {"[TASK #107]"}, "task [TASK #107] is blocked.", True),
    ("task [TASK #107] is blocked; see [DOC #5] and [DOC #7].", {"[TASK #107]", "[DOC #5]"},
     "task [TASK #107] is blocked; see [DOC #5].", True),
    ("task [TASK #107] is blocked; see [DOC #5] and [DOC #7].", set(), "", False),
    ("Diego owns it [TASK #107]. Also see [TASK #99999].", {"[TASK #107]"}, "Diego owns it [TASK #107].", True),
    ("Ana owns the login fix [TASK #107], and Ben is on the iOS build [TASK #55].", {"[TASK #55]"},
     "Ben is on the iOS build [TASK #55].", True),
    ("[TASK #1] and [TASK #2] are late.", {"[TASK #1]"}, "[TASK #1] are late.", True),
    ("Hello!\n- first [TASK #2]\n- second [TASK #3]", {"[TASK #3]"}, "Hello!\n- second [TASK #3]", True),
    ("I don't know.", set(), "I don't know.", True),
    ("It is due soon (see [TASK #4]). Ask Ana.", set(), "Ask Ana.", False),
    # A period inside a number or after an abbreviation does not end the sentence whose claim goes.
    ("Version 1.2 is out [TASK #5]. Known [TASK #1].", {"[TASK #1]"}, "Known [TASK #1].", True),
    ("Dr. Smith said it is blocked [TASK #5]. Known [TASK #1].", {"[TASK #1]"}, "Known [TASK #1].", True),
    ("Known [TASK #1]. Some tools, e.g. the linter, fail [DOC #9].", {"[TASK #1]"}, "Known [TASK #1].", True),
    ("1. uno [TASK #1]\n2. dos [TASK #5]", {"[TASK #1]"}, "1. uno [TASK #1]", True),  # no dangling "2."
    ("Diego owns it [TASK #1] (see [DOC #5]).", {"[TASK #1]"}, "Diego owns it [TASK #1].", True),
    ("[TASK #1] is done, [TASK #5] is not.", {"[TASK #1]"}, "[TASK #1] is done.", True),
])
def test_a_removed_citation_takes_its_claim_with_it(answer, citable, cleaned, grounded):
    result = citations.clean(answer, citable)
    assert (result.text, result.grounded) == (cleaned, grounded)
    assert set(result.cited) <= citable and not set(result.removed) & citable


LOOSE_ANCHOR = re.compile(r"\[\s*(?:task|sprint|project|doc)\s*#", re.IGNORECASE)


@pytest.mark.parametrize("answer, citable, cleaned", [
    ("See [TASK  #5] for it. Known [TASK #1].", {"[TASK #1]"}, "Known [TASK #1]."),  # not tidied into [TASK #5]
    ("Hidden [task #5] here. Known [TASK #1].", {"[TASK #1]"}, "Known [TASK #1]."),
    ("It is done [task #1].", {"[TASK #1]"}, "It is done [TASK #1]."),
    ("Late [ TASK #007 ].", {"[TASK #7]"}, "Late [TASK #7]."),
    ("It is blocked [TASK #1, TASK #5].", {"[TASK #1]"}, "It is blocked [TASK #1]."),
    ("Both are late [TASK #1; #2].", {"[TASK #1]", "[TASK #2]"}, "Both are late [TASK #1] [TASK #2]."),
])
def test_an_anchor_in_any_spelling_is_checked_like_one(answer, citable, cleaned):
    """Every anchor the answer keeps names something citable, however the model spelled it: a spelling
    the check did not recognise must not reach the reader (nor be tidied into a real-looking anchor)."""
    result = citations.clean(answer, citable)
    assert result.text == cleaned
    left = [m.start() for m in LOOSE_ANCHOR.finditer(result.text)]
    assert len(left) == len(re.findall(r"\[(?:TASK|DOC) #\d+\]", result.text))
    assert set(re.findall(r"\[(?:TASK|DOC) #\d+\]", result.text)) <= citable


@contextmanager
def at_most(seconds: int):
    """A generous bound for input that used to take minutes (catastrophic regex backtracking): the suite
    fails with a clear message instead of hanging. Speed itself is scripts/bench_chat_core.py's job."""
    def expired(*_):
        raise AssertionError(f"took over {seconds} s: the cleaner is not linear in its input")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.parametrize("hostile, kept", [
    ("x [TASK #1] y [TASK #5]" + " ," * 20_000 + " z", "x [TASK #1], z"),  # was 4.6 minutes
    ("[TASK #5]" + " " * 40_000 + "x. Known [TASK #1].", "Known [TASK #1]."),
    ("Known [TASK #1] and" + " and" * 20_000 + " [TASK #5].", "Known [TASK #1]."),
    ("Known [TASK #1]." + " e.g." * 10_000 + " [TASK #5].", "Known [TASK #1]."),
    ("Known [TASK #1] " + "[TASK #5] " * 5_000 + ".", "Known [TASK #1]."),
    ("Known [TASK #1]" + " " * 40_000 + "x [TASK #5].", "Known [TASK #1] x."),
])
def test_cleaning_a_hostile_reply_is_linear(hostile, kept):
    """The model's reply is not trusted text (prompt injection can shape it) and the chat cleans it on the
    event loop: 40,000 characters must not hold it for minutes."""
    with at_most(60):
        result = citations.clean(hostile, {"[TASK #1]"})
    assert result.text == kept and result.cited == ["[TASK #1]"]


def test_demo_dates_follow_the_day_seeded_and_nothing_else_does():
    today = dt.date(2027, 3, 10)
    data = demo_data.build(today=today)
    assert data == demo_data.build(today=today)  # deterministic for a given day
    running = [s for s in data.sprints if s["status"] == "ACTIVE"]
    assert running and all(s["start_date"] <= today <= s["end_date"] for s in running)
    assert all(s["end_date"] < today for s in data.sprints if s["status"] == "CLOSED")
    dues = [t["expected_end_date"] for t in data.tasks]
    assert min(dues) >= today - dt.timedelta(days=20) and max(dues) < today + dt.timedelta(days=60)
    other = demo_data.build(today=dt.date(2025, 1, 1))
    strip = lambda rows: [{k: v for k, v in r.items() if not isinstance(v, dt.date)} for r in rows]  # noqa: E731
    assert strip(other.tasks) == strip(data.tasks) and strip(other.sprints) == strip(data.sprints)


# --- tracker keys (issue 24) ----------------------------------------------------------------------

@pytest.mark.parametrize("text, keys", [
    ("what is the status of PAY-1210?", ["PAY-1210"]),
    ("PAY-1210", ["PAY-1210"]),
    ("who commented on MOB-231? and on MOB-231", ["MOB-231"]),
    ("what blocks PAY-77, PAY_OPS-3 or octo/repo#123?", ["PAY-77", "PAY_OPS-3", "octo/repo#123"]),
    ("see https://github.com/octo/my.repo#7.", ["octo/my.repo#7"]),
    ("COVID-19 rules", ["COVID-19"]),  # a look-alike: only the database can tell (no task has that key)
    ("pay-12, X-1, ABC-12-3, ÁB-12, task #107, p95 of 2.3 s", []),
])
def test_tracker_keys_in_text(text, keys):
    assert refs.key_mentions(text) == keys


def test_at_most_ten_keys_are_read_from_one_question():
    assert len(refs.key_mentions(" ".join(f"PAY-{i}" for i in range(1, 30)))) == refs.MAX_KEYS


def test_a_resolved_key_is_a_lookup_and_an_unresolved_one_routes_as_if_it_were_not_there():
    keyed = routing.route("what is the status of PAY-1210?", None, NAMES, TODAY, keyed=(("task", 501),))
    assert keyed.kind == "lookup" and keyed.refs == (("task", 501),)
    both = routing.route("compare task 107 with PAY-1210", None, NAMES, TODAY, keyed=(("task", 501),))
    assert both.refs == (("task", 107), ("task", 501))
    unresolved = routing.route("what is the status of PAY-1210?", None, NAMES, TODAY)
    assert unresolved.kind == "retrieve"  # a hidden key and an unknown one: the same route
    # An unresolved key is as if not written (a follow-up stays one); a resolved one moves the focus, as an id does.
    assert routing.route("is it blocked by PAY-56?", ("task", 7), NAMES, TODAY).refs == (("task", 7),)
    assert routing.route("is it blocked by PAY-56?", ("task", 7), NAMES, TODAY, keyed=(("task", 56),)).refs == \
        (("task", 56),)
    assert routing.route("octo/repo#123", None, NAMES, TODAY).kind == "retrieve"  # its "#123" is no task id
    assert routing.route("#123", None, NAMES, TODAY).kind == "lookup"


def test_a_tracker_reading_gives_way_when_a_retrieved_document_holds_its_other_words():
    from app.domain import SearchHit
    ana = Person(2, "Ana", "Garcia")
    asked = task_questions.TaskQuestion(lang="en", people=(ana,), words=("ana",))
    notes = SearchHit("doc", 6, 0, "[DOC #6] 1:1 notes Ana / Maria\nAna wants to lead the offline sync design.", 0.7, 0.3)
    task = SearchHit("task", 9, 0, "[TASK #9] Lead the cost report migration\nAssignee: Ana Garcia", 0.7, 0.3)
    assert routing.said_in_a_document("what does Ana want to lead?", asked, [task, notes])
    assert not routing.said_in_a_document("what does Ana want to lead?", asked, [task])  # a task is her work
    assert not routing.said_in_a_document("what does Ana have?", asked, [notes])  # nothing beyond the filters
    assert not routing.said_in_a_document("what does Ana lead?", asked, [notes])  # one word proves nothing
    nobody = task_questions.TaskQuestion(lang="en", words=("open",))
    assert not routing.said_in_a_document("how many open tasks want a lead?", nobody, [notes])  # no person
    other = SearchHit("doc", 7, 0, "[DOC #7] Notes\nBen wants to lead the design.", 0.7, 0.3)
    assert not routing.said_in_a_document("what does Ana want to lead?", asked, [other])  # not about Ana


@pytest.mark.parametrize("question, dimension, open_only, overdue", [
    ("where are the most overdue tasks?", "project", False, True),  # a tracker's "where" is a project
    ("¿qué proyecto va peor de plazos?", "project", False, True),
    ("who has the most on their plate?", "assignee", True, False),  # what is on one's plate is not finished
])
def test_comparisons_in_other_words(question, dimension, open_only, overdue):
    route = routing.route(question, None, NAMES, TODAY)
    assert route.kind == "compare" and route.group.dimension == dimension
    assert (route.tasks.open_only, route.tasks.overdue) == (open_only, overdue)
