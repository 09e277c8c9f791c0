"""Conversations, messages, find_tasks, project summaries and the Telegram lookup, identical on both
engines (the storage half of the bot's chat surface; ownership checks are the service's job)."""

from __future__ import annotations

import datetime as dt
import itertools
import time

import pytest

from app.domain import TASK_FIELDS, TaskQuery, TurnFacts
from app.engines.base import ConflictError
from app.entities import EMPLOYEES, PROJECTS, TASKS
from app.rag.access import is_visible
from app.services.conversations import withdrawn
from app.services.search import resolve_caller
from tests.support import drain_all, employee, peek_queue, project, sprint, task


def test_create_get_and_list_newest_updated_first_with_paging(engine):
    ana, ben = employee(engine, "Ana", "Ruiz"), employee(engine, "Ben", "Ode")
    p = project(engine, "Apollo")
    first = engine.create_conversation(ana, "all", None, "First")
    second = engine.create_conversation(ana, str(p), p, None)
    engine.create_conversation(ben, "none", None, "Ben's")
    assert engine.get_conversation(first.conversation_id) == first
    assert (second.rag_scope, second.pinned_project_id, second.title, second.employee_id) == (str(p), p, None, ana)
    assert first.created_at <= first.updated_at and isinstance(first.created_at, dt.datetime)
    assert engine.get_conversation(first.conversation_id + 1000) is None

    assert ids(engine.list_conversations(ana, None, 10)) == [second.conversation_id, first.conversation_id]
    time.sleep(0.005)  # UPDATED_AT has millisecond precision on SQLite: let the clock move past `second`'s
    engine.append_turn(first.conversation_id, "hi", "hello", [])  # a stored turn makes it the newest
    top = engine.list_conversations(ana, None, 1)
    assert ids(top) == [first.conversation_id] and (top.total, top.more) == (2, True)
    newest = top.items[0]
    rest = engine.list_conversations(ana, (newest.updated_at, newest.conversation_id), 1)
    assert ids(rest) == [second.conversation_id] and (rest.total, rest.more) == (2, False)
    last = rest.items[0]
    assert engine.list_conversations(ana, (last.updated_at, last.conversation_id), 10).items == []


def test_conversations_with_the_same_updated_at_page_by_id(engine):
    """The keyset's tie-break: equal UPDATED_AT (conversations created in the same millisecond) pages by id."""
    ana = employee(engine, "Ana", "Ruiz")
    made = [engine.create_conversation(ana, "all", None, f"c{i}") for i in range(5)]
    seen, after = [], None
    while True:  # pages of two: no row skipped or repeated, even where several share a stamp
        page = engine.list_conversations(ana, after, 2)
        seen += ids(page)
        if not page.more:
            break
        after = (page.items[-1].updated_at, page.items[-1].conversation_id)
    assert sorted(seen) == sorted(c.conversation_id for c in made) and len(seen) == 5
    by_time = sorted(made, key=lambda c: (c.updated_at, c.conversation_id), reverse=True)
    assert seen == [c.conversation_id for c in by_time]


def ids(page):
    return [c.conversation_id for c in page.items]


def test_an_answer_keeps_what_it_rested_on_and_bad_facts_store_nothing(engine):
    """FOCUS, RETRIEVED, RAG_SCOPE and LLM_ERROR (V9 / V13) round-trip on the assistant row only; a
    turn whose facts are malformed is refused before anything is written."""
    ana = employee(engine, "Ana", "Ruiz")
    conv = engine.create_conversation(ana, "all", None, None)
    facts = TurnFacts(focus="[TASK #107]", retrieved=(("task", 107, 0), ("doc", 6, 2)), rag_scope="none",
                      llm_error="ungrounded")
    user, answer = engine.append_turn(conv.conversation_id, "q", "a [TASK #107]", ["[TASK #107]"], facts=facts)
    assert (answer.facts, user.facts) == (facts, TurnFacts())
    assert [m.facts for m in engine.recent_messages(conv.conversation_id, 2)] == [TurnFacts(), facts]
    for bad in ({"focus": "TASK 107"}, {"retrieved": (("task", -1, 0),)}, {"llm_error": "oops"},
                {"rag_scope": "0"}, {"retrieved": tuple(("task", i, 0) for i in range(1, 66))}):
        with pytest.raises(ValueError):
            TurnFacts(**bad)
    widest = TurnFacts(focus=f"[PROJECT #{2**63 - 1}]",
                       retrieved=tuple(("project", 2**63 - 1 - i, 2**63 - 1) for i in range(64)))
    assert len(widest.retrieved_json().encode()) <= 4000  # Oracle's VARCHAR2(4000 BYTE)
    engine.append_turn(conv.conversation_id, "q2", "a2", [], facts=widest)
    assert engine.recent_messages(conv.conversation_id, 1)[0].facts == widest


def test_an_answer_keeps_the_tracker_query_it_ran_and_a_follow_up_reads_it_back(engine):
    """TRACKER_QUERY (SQLite V14 / Oracle V19): the typed query an answer ran round-trips as it was written, so a
    follow-up can edit it; a query past the column's 4000 bytes or not a JSON object is refused before a write."""
    from app.rag.understanding.query import Predicate, TrackerQuery, query_from_json

    ana = employee(engine, "Ana", "Ruiz")
    conv = engine.create_conversation(ana, "all", None, None)
    query = TrackerQuery(where=(Predicate("assignee", (ana,)), Predicate("label", ("needs-triage", "ñandú")),
                                Predicate("created", window=(dt.date(2026, 11, 1), None))), returns="count")
    facts = TurnFacts(query=query.to_json())
    engine.append_turn(conv.conversation_id, "how many?", "Tasks: 3", [], facts=facts)
    user, answer = engine.recent_messages(conv.conversation_id, 2)
    assert (user.facts.query, query_from_json(answer.facts.query)) == (None, query)
    for bad in ("[]", "{" + "x" * 4000 + "}", "not json"):
        with pytest.raises(ValueError):
            TurnFacts(query=bad)
    widest = TurnFacts(query="{" + "é" * 1998 + "}")  # 3,998 bytes: Oracle's VARCHAR2(4000 BYTE) holds it
    engine.append_turn(conv.conversation_id, "q2", "a2", [], facts=widest)
    assert engine.recent_messages(conv.conversation_id, 1)[0].facts == widest


def test_every_entity_an_answer_rests_on_is_stored_past_the_caps_and_withdraws_it(engine):
    """MESSAGE_ENTITIES (SQLite V12 / Oracle V17): all 160 tasks an answer names are stored, past the
    100 citations and 64 retrieved chunks the message row keeps; withdrawal sees each of them; the rows
    go with their conversation and their employee (the foreign key would refuse those deletes otherwise)."""
    ana, ben = employee(engine, "Ana", "Ruiz"), employee(engine, "Ben", "Ode")
    tasks = [task(engine, f"Step {n}", assignee_id=ana) for n in range(160)]
    facts = TurnFacts(focus=f"[TASK #{tasks[0]}]", retrieved=tuple(("task", t, 0) for t in tasks[:64]),
                      entities=tuple(sorted(("task", t) for t in tasks)))
    conv = engine.create_conversation(ana, "all", None, None)
    cited = [f"[TASK #{t}]" for t in tasks[:100]]
    _, answer = engine.append_turn(conv.conversation_id, "my tasks?", "all 160", cited, facts=facts)
    assert answer.facts == facts
    engine.append_turn(conv.conversation_id, "thanks", "you're welcome", [])  # an answer resting on nothing
    history = engine.recent_messages(conv.conversation_id, 10)
    assert [m.facts.entities for m in history] == [(), facts.entities, (), ()]
    assert engine.list_messages(conv.conversation_id, None, 10).items == history
    assert engine.list_messages(conv.conversation_id, history[1].message_id, 10).items == history[2:]
    caller = resolve_caller(engine, ana)
    assert withdrawn(engine, caller, history) == set()
    engine.update(TASKS, tasks[149], {"ASSIGNEE_ID": ben})  # past both caps
    assert withdrawn(engine, caller, history) == {answer.message_id}
    for bad in ((("task", 2), ("task", 1)), (("task", 1), ("task", 1)), (("task", 0),), (("person", 1),),
                (("task", True),)):
        with pytest.raises(ValueError):
            TurnFacts(entities=bad)
    assert engine.delete_conversation(conv.conversation_id)
    assert engine.list_messages(conv.conversation_id, None, 10).items == []
    again = engine.create_conversation(ana, "all", None, None)
    engine.append_turn(again.conversation_id, "q", "a", [], facts=TurnFacts(entities=(("task", tasks[0]),)))
    assert engine.delete(EMPLOYEES, ana) and engine.get_conversation(again.conversation_id) is None


def test_an_answer_stored_before_its_entities_were_recorded_is_withdrawn_when_its_lists_filled_their_caps(engine):
    """An answer without MESSAGE_ENTITIES rows (written before V12 / V17) may have rested on more than its 100
    citations or 64 retrieved chunks: it is withdrawn, though all it lists is still visible; one below both caps
    is judged by what it lists."""
    ana = employee(engine, "Ana", "Ruiz")
    tasks = [task(engine, f"Step {n}", assignee_id=ana) for n in range(100)]
    conv = engine.create_conversation(ana, "all", None, None)
    engine.append_turn(conv.conversation_id, "all?", "100 of them", [f"[TASK #{t}]" for t in tasks])
    engine.append_turn(conv.conversation_id, "some?", "99 of them", [f"[TASK #{t}]" for t in tasks[:99]],
                       facts=TurnFacts(retrieved=tuple(("task", t, 0) for t in tasks[:63])))
    at_caps, below = [m for m in engine.recent_messages(conv.conversation_id, 4) if m.role == "assistant"]
    assert withdrawn(engine, resolve_caller(engine, ana), [at_caps, below]) == {at_caps.message_id}


def test_scope_is_stored_and_a_malformed_one_changes_nothing(engine):
    ana = employee(engine, "Ana", "Ruiz")
    conv = engine.create_conversation(ana, "all", None, None)
    assert engine.set_conversation_scope(conv.conversation_id, "none").rag_scope == "none"
    changed = engine.set_conversation_scope(conv.conversation_id, 42)
    assert changed.rag_scope == "42" and changed.updated_at >= conv.updated_at
    for bad in ("0", "-1", "x", "", "01", "4.5", True, None, 2**63):
        with pytest.raises(ValueError):
            engine.set_conversation_scope(conv.conversation_id, bad)
        with pytest.raises(ValueError):
            engine.create_conversation(ana, bad, None, None)
    assert engine.get_conversation(conv.conversation_id).rag_scope == "42"
    assert engine.list_conversations(ana, None, 10).total == 1
    assert engine.set_conversation_scope(conv.conversation_id + 1000, "all") is None


def test_a_pinned_conversation_never_leaves_its_project_by_a_scope_write(engine):
    """The pin is checked by the write itself, not by a read before it: a PATCH that read the conversation
    unpinned, or a model's set_rag_scope chosen before the user pinned it, must not move it off the project
    it was pinned to meanwhile (a pin its scope contradicts). The service tells 404 from 409 afterwards."""
    ana = employee(engine, "Ana", "Ruiz")
    p, q = project(engine, "Apollo"), project(engine, "Hermes")
    conv = engine.create_conversation(ana, "all", None, None)
    engine.set_conversation_pin(conv.conversation_id, str(p), p)  # pinned by someone else's request meanwhile
    for scope in ("all", "none", str(q)):
        assert engine.set_conversation_scope(conv.conversation_id, scope) is None
        with pytest.raises(ConflictError):
            engine.append_turn(conv.conversation_id, "q", "a", [], rag_scope=scope)
    assert engine.set_conversation_scope(conv.conversation_id, str(p)).rag_scope == str(p)  # its own: fine
    kept = engine.get_conversation(conv.conversation_id)
    assert (kept.rag_scope, kept.pinned_project_id) == (str(p), p)
    assert engine.list_messages(conv.conversation_id, None, 10).items == []  # the refused turns stored nothing
    engine.append_turn(conv.conversation_id, "q", "a", [], rag_scope=str(p))
    assert len(engine.list_messages(conv.conversation_id, None, 10).items) == 2


def test_unknown_employee_or_pinned_project_is_a_conflict(engine):
    ana = employee(engine, "Ana", "Ruiz")
    with pytest.raises(ConflictError):
        engine.create_conversation(ana + 1000, "all", None, None)
    with pytest.raises(ConflictError):
        engine.create_conversation(ana, "all", 999_999, None)
    assert engine.list_conversations(ana, None, 10).items == []


def test_append_turn_stores_both_rows_and_reads_back_in_order(engine):
    ana = employee(engine, "Ana", "Ruiz")
    conv = engine.create_conversation(ana, "all", None, "Login")
    user, answer = engine.append_turn(conv.conversation_id, "who fixes login?", "Ana [TASK #3]", ["[TASK #3]"])
    assert (user.role, user.content, user.citations) == ("user", "who fixes login?", ())
    assert (answer.role, answer.content, answer.citations) == ("assistant", "Ana [TASK #3]", ("[TASK #3]",))
    assert answer.message_id > user.message_id and answer.conversation_id == conv.conversation_id
    long_text = "ü" * 5000  # over 4000 bytes: Oracle's CONTENT is a CLOB
    for i in range(2):
        engine.append_turn(conv.conversation_id, f"q{i}", long_text, ["[DOC #1]", "[TASK #2]"])
    messages = engine.list_messages(conv.conversation_id, None, 100).items
    assert [m.content for m in messages] == ["who fixes login?", "Ana [TASK #3]", "q0", long_text, "q1", long_text]
    assert messages[3].citations == ("[DOC #1]", "[TASK #2]")
    page = engine.list_messages(conv.conversation_id, messages[0].message_id, 2)
    assert [m.content for m in page.items] == ["Ana [TASK #3]", "q0"] and (page.total, page.more) == (6, True)
    assert [m.content for m in engine.recent_messages(conv.conversation_id, 3)] == [long_text, "q1", long_text]
    assert engine.recent_messages(conv.conversation_id, 0) == []
    assert engine.get_conversation(conv.conversation_id).updated_at >= conv.updated_at


def test_append_turn_is_one_transaction(engine):
    ana = employee(engine, "Ana", "Ruiz")
    conv = engine.create_conversation(ana, "all", None, None)
    # The database refuses the second row (CONTENT is NOT NULL): the first must not stay behind.
    with pytest.raises(ConflictError):
        engine.append_turn(conv.conversation_id, "a question that must not stay", None, [])
    assert engine.list_messages(conv.conversation_id, None, 10).items == []
    assert engine.get_conversation(conv.conversation_id).updated_at == conv.updated_at
    with pytest.raises(ConflictError):
        engine.append_turn(conv.conversation_id + 1000, "q", "a", [])
    with pytest.raises(ValueError):
        engine.append_turn(conv.conversation_id, "q", "a", "[TASK #1]")  # not a list of anchors
    assert engine.list_messages(conv.conversation_id, None, 10).items == []


def test_a_scope_chosen_during_a_turn_is_stored_with_it_or_not_at_all(engine):
    """The model's set_rag_scope is stored in the turn's transaction: a failed turn leaves the scope as it was."""
    ana = employee(engine, "Ana", "Ruiz")
    conv = engine.create_conversation(ana, "all", None, None)
    with pytest.raises(ConflictError):
        engine.append_turn(conv.conversation_id, "q", None, [], rag_scope="none")
    assert engine.get_conversation(conv.conversation_id).rag_scope == "all"
    engine.append_turn(conv.conversation_id, "q", "a", [], rag_scope="none")
    assert engine.get_conversation(conv.conversation_id).rag_scope == "none"
    assert engine.list_messages(conv.conversation_id, None, 10).total == 2


def test_delete_conversation_takes_its_messages(engine):
    ana = employee(engine, "Ana", "Ruiz")
    keep, gone = (engine.create_conversation(ana, "all", None, t) for t in ("keep", "gone"))
    for conv in (keep, gone):
        engine.append_turn(conv.conversation_id, "q", "a", [])
    assert engine.delete_conversation(gone.conversation_id) is True
    assert engine.get_conversation(gone.conversation_id) is None
    assert engine.list_messages(gone.conversation_id, None, 10).items == []
    assert engine.delete_conversation(gone.conversation_id) is False
    assert engine.list_messages(keep.conversation_id, None, 10).total == 2


def test_deleting_the_employee_cascades_and_a_deleted_pinned_project_unpins(engine):
    ana, ben = employee(engine, "Ana", "Ruiz"), employee(engine, "Ben", "Ode")
    p = project(engine, "Apollo")
    conv = engine.create_conversation(ana, str(p), p, None)
    engine.append_turn(conv.conversation_id, "q", "a", [])
    bens = engine.create_conversation(ben, str(p), p, None)
    assert engine.delete(PROJECTS, p)
    unpinned = engine.get_conversation(bens.conversation_id)
    assert unpinned.pinned_project_id is None and unpinned.rag_scope == str(p)  # the service judges a gone project
    assert engine.delete(EMPLOYEES, ana)
    assert engine.get_conversation(conv.conversation_id) is None
    assert engine.list_messages(conv.conversation_id, None, 10).items == []
    assert engine.get_conversation(bens.conversation_id) is not None


def test_wipe_clears_the_conversation_tables(engine):
    ana = employee(engine, "Ana", "Ruiz")
    conv = engine.create_conversation(ana, "all", None, None)
    engine.append_turn(conv.conversation_id, "q", "a", [])
    engine.wipe()
    assert engine.get_conversation(conv.conversation_id) is None
    assert engine.list_messages(conv.conversation_id, None, 10).items == []


# --- find_tasks: the access rule of search, in SQL, under every filter ---------------------------

TODAY = dt.date(2025, 6, 1)


def seed_tasks(engine):
    ana, ben = employee(engine, "Ana", "Ruiz"), employee(engine, "Ben", "Ode")
    boss = employee(engine, "Mia", "Boss", role="MANAGER")
    p1, p2 = project(engine, "Apollo"), project(engine, "Zeus")
    s1 = sprint(engine, p1, "Sprint 3")
    past, future = dt.date(2025, 5, 1), dt.date(2025, 7, 1)
    rows = [  # title, assignee, project, sprint, status, priority, due
        ("Fix login", ana, p1, s1, "TODO", "HIGH", past),
        ("Old report", ana, p1, None, "DONE", "LOW", past),
        ("Ben's API", ben, p1, s1, "IN_PROGRESS", "CRITICAL", past),
        ("Nobody's outage", None, p1, s1, "TODO", "CRITICAL", past),
        ("Nobody's docs", None, p2, None, "TODO", "LOW", future),
        ("Ana's future", ana, p2, None, "in_review", "high", future),
    ]
    tasks = {}
    for title, who, proj, spr, status, priority, due in rows:
        tid = task(engine, title, assignee_id=who, project_id=proj, sprint_id=spr, status=status, priority=priority,
                   expected_end_date=due)
        tasks[tid] = dict(assignee_id=who, project_id=proj, sprint_id=spr, status=status, priority=priority, due=due)
    return dict(ana=ana, ben=ben, boss=boss, p1=p1, p2=p2, s1=s1), tasks


def expected(caller, tasks, q: TaskQuery) -> list[int]:
    def keep(t):
        return all([
            is_visible(caller, "task", t["assignee_id"]),
            q.status is None or t["status"].upper() == q.status.upper(),
            q.priority is None or t["priority"].upper() == q.priority.upper(),
            q.sprint_id is None or t["sprint_id"] == q.sprint_id,
            q.project_id is None or t["project_id"] == q.project_id,
            q.assignee_id is None or t["assignee_id"] == q.assignee_id,
            q.overdue_on is None or (t["due"] < q.overdue_on and t["status"].upper() != "DONE"),
            not q.unassigned or t["assignee_id"] is None,
            not q.open_only or t["status"].upper() != "DONE",
            q.due_after is None or t["due"] >= q.due_after,
            q.due_before is None or t["due"] < q.due_before,
        ])
    return sorted(tid for tid, t in tasks.items() if keep(t))[: q.limit]


def test_find_tasks_never_returns_a_task_the_caller_may_not_see_under_any_filter(engine):
    ids, tasks = seed_tasks(engine)
    values = dict(status=[None, "todo"], priority=[None, "CRITICAL", "high"], sprint_id=[None, ids["s1"]],
                  project_id=[None, ids["p1"]], assignee_id=[None, ids["ana"], ids["ben"]],
                  overdue_on=[None, TODAY], unassigned=[False, True])
    checked = 0
    for who in ("ana", "ben", "boss"):
        caller = engine.caller(ids[who])
        for combo in itertools.product(*values.values()):
            q = TaskQuery(**dict(zip(values, combo)))
            found = engine.find_tasks(caller, q)
            assert [t["task_id"] for t in found] == expected(caller, tasks, q), (who, q)
            assert all(is_visible(caller, "task", t["assignee_id"]) for t in found)
            checked += 1
    assert checked == 3 * 2 * 3 * 2 * 2 * 3 * 2 * 2


def test_find_tasks_open_and_due_window_under_the_access_rule(engine):
    """The filters the structured questions add ("still open", "due this week"): exact day bounds, the
    upper one exclusive, under the access rule for every caller."""
    ids, tasks = seed_tasks(engine)
    windows = [(None, None), (dt.date(2025, 5, 1), None), (None, dt.date(2025, 5, 1)),
               (dt.date(2025, 5, 1), dt.date(2025, 5, 2)), (dt.date(2025, 6, 1), dt.date(2025, 8, 1))]
    for who in ("ana", "ben", "boss"):
        caller = engine.caller(ids[who])
        for open_only in (False, True):
            for after, before in windows:
                q = TaskQuery(open_only=open_only, due_after=after, due_before=before, limit=500)
                assert [t["task_id"] for t in engine.find_tasks(caller, q)] == expected(caller, tasks, q), (who, q)
    boss = engine.caller(ids["boss"])
    assert len(engine.find_tasks(boss, TaskQuery(open_only=True, limit=500))) == 5  # all but the DONE one
    day = engine.find_tasks(boss, TaskQuery(due_after=dt.date(2025, 5, 1), due_before=dt.date(2025, 5, 2)))
    assert len(day) == 4  # the four tasks due on 2025-05-01, the bound day included


def test_find_tasks_rows_limit_and_who_sees_unassigned(engine):
    ids, tasks = seed_tasks(engine)
    boss, ana = engine.caller(ids["boss"]), engine.caller(ids["ana"])
    [outage] = engine.find_tasks(boss, TaskQuery(unassigned=True, priority="critical"))
    assert set(outage) == set(TASK_FIELDS)
    assert (outage["title"], outage["assignee_id"], outage["assignee_name"]) == ("Nobody's outage", None, None)
    assert (outage["sprint_name"], outage["project_name"], outage["expected_end_date"]) == (
        "Sprint 3", "Apollo", dt.date(2025, 5, 1))
    assert engine.find_tasks(ana, TaskQuery(unassigned=True)) == []  # managers and admins only
    overdue = engine.find_tasks(ana, TaskQuery(overdue_on=TODAY))
    assert [(t["title"], t["assignee_name"]) for t in overdue] == [("Fix login", "Ana Ruiz")]
    assert len(engine.find_tasks(boss, TaskQuery(limit=2))) == 2
    for bad in (dict(limit=0), dict(limit=501), dict(due_after="2025-01-01"), dict(sprint_id=-1), dict(status=""), dict(overdue_on="2025-01-01")):
        with pytest.raises(ValueError):
            TaskQuery(**bad)


# --- project matching, summaries, Telegram ------------------------------------------------------

def test_project_summaries_are_data_not_chunk_text(engine):
    p = project(engine, "Apollo", description="Launch the rocket")
    drain_all(engine)
    assert [(c.project_id, c.name, c.description, c.auto_summary) for c in engine.projects_for_matching()] == [
        (p, "Apollo", "Launch the rocket", None)]
    summary = "Apollo is the launch project. " * 200  # long: Oracle's AUTO_SUMMARY is a CLOB
    assert engine.set_project_summary(p, summary) is True
    assert engine.projects_for_matching()[0].auto_summary == summary
    assert engine.set_project_summary(p + 1000, "x") is False
    # The summary write queues the project like any update; its chunk text is unchanged, so nothing is embedded.
    assert {(r.source_type, r.source_id) for r in peek_queue(engine)} <= {("project", p)}
    assert drain_all(engine).chunks_written == 0
    assert engine.set_project_summary(p, None) is True and engine.projects_for_matching()[0].auto_summary is None



# --- entities by id, names, pins, summaries (issue 15) -----------------------------------------------

def test_an_entity_by_id_follows_the_search_rule_and_hidden_reads_as_missing(engine):
    """entities.visible (ids in questions, the focus, memory, get_entity) against the rule search applies,
    for every caller and every kind of entity; a missing id and a hidden one are equally absent."""
    from app.domain import Scope
    from app.services import entities
    from tests.support import document

    ids, tasks = seed_tasks(engine)
    docs = [document(engine, "Org guide", "for everyone"), document(engine, "Ana's notes", "mine", owner_id=ids["ana"]),
            document(engine, "Ben's notes", "his", owner_id=ids["ben"])]
    drain_all(engine)
    wanted = [("task", t) for t in tasks] + [("doc", d) for d in docs] + [("project", ids["p1"]),
              ("sprint", ids["s1"]), ("task", 987_654), ("doc", 987_654), ("sprint", 987_654)]
    for who in ("ana", "ben", "boss"):
        caller = engine.caller(ids[who])
        searched = {(h.source_type, h.source_id) for h in engine.search(
            engine.embed_query("notes login"), "notes login", caller, 100, Scope(), "vector").hits}
        found = entities.visible(engine, caller, wanted)
        assert set(found) == {r for r in wanted if r in searched}, who
        assert list(found) == [r for r in wanted if r in found]  # in the order asked
        for ref, record in found.items():
            assert entities.ref_of(record) == ref and entities.text_of(record).startswith(
                f"[{ref[0].upper() if ref[0] != 'doc' else 'DOC'} #{ref[1]}]")


def test_vocabulary_pin_and_project_summary(engine):
    ana = employee(engine, "Ana", "Ruiz")
    apollo, zeus = project(engine, "Apollo"), project(engine, "Zeus")
    s1 = sprint(engine, apollo, "Apollo Sprint 1")
    names = engine.vocabulary()
    assert [(p.employee_id, p.first_name, p.last_name) for p in names.people] == [(ana, "Ana", "Ruiz")]
    assert [(n.id, n.name) for n in names.projects] == [(apollo, "Apollo"), (zeus, "Zeus")]
    assert [(n.id, n.name, n.project_id) for n in names.sprints] == [(s1, "Apollo Sprint 1", apollo)]
    conv = engine.create_conversation(ana, str(apollo), apollo, None)
    moved = engine.set_conversation_pin(conv.conversation_id, str(zeus), zeus)
    assert (moved.rag_scope, moved.pinned_project_id) == (str(zeus), zeus)
    free = engine.set_conversation_pin(conv.conversation_id, "all", None)
    assert (free.rag_scope, free.pinned_project_id) == ("all", None) and free.updated_at >= moved.updated_at
    with pytest.raises(ConflictError):
        engine.set_conversation_pin(conv.conversation_id, str(zeus + 1000), zeus + 1000)
    assert engine.get_conversation(conv.conversation_id).pinned_project_id is None  # nothing changed
    assert engine.set_conversation_pin(conv.conversation_id + 1000, "all", None) is None
    assert engine.project_summary(apollo) == (None, None) and engine.project_summary(zeus + 1000) is None
    engine.set_project_summary(apollo, "Apollo ships the launch.")
    text, at = engine.project_summary(apollo)
    assert text == "Apollo ships the launch." and isinstance(at, dt.datetime)
