"""query_tasks, the model's typed tracker query (issue 31, point 7), over the official MCP SDK client at the
app's /mcp on a real loopback server, and in chat through the loopback LLM: names resolved from the data, every
predicate kind, counts and groups over every visible row, unknown and ambiguous names refused with candidates,
hostile values refused before anything runs, and no leak. Truths are computed from what query_data wrote."""

from __future__ import annotations

import datetime as dt
import json
from collections import Counter
from pathlib import Path

import pytest
from pydantic import SecretStr

from app.api.main import create_app
from tests.fake_llm import FakeLLM, Reply

from .chat_data import AUTH, client_for, llm_settings, tool_result
from .query_data import COMPONENTS, HIDDEN_LABEL, TODAY, is_open, seed, visible
from .servers import serve
from .test_mcp import ADMIN, ANA, call, http_session, run, sha256


@pytest.fixture
def data(sqlite_engine, sqlite_settings):
    return seed(sqlite_engine, sqlite_settings)


@pytest.fixture
def mcp_url(api_settings, sqlite_engine, data):
    ids, _ = data
    scopes = [{"token": sha256(ANA), "scope": "user", "employee_id": ids["ana"]}]
    settings = api_settings.model_copy(update={"api_token_scopes": SecretStr(json.dumps(scopes))})
    with serve(create_app(settings, engine=sqlite_engine), timeout_graceful_shutdown=2) as url:
        yield f"{url}/mcp"


def ids_of(payload) -> set[int]:
    return {t["task_id"] for t in payload["tasks"]}


def _cases(ids):
    """(arguments, what a task must satisfy): every predicate kind, names where ids would do."""
    in_days = lambda t, a, b: a <= t["CREATED_AT"].date() <= b  # noqa: E731
    week_ago = TODAY - dt.timedelta(days=7)
    return [
        ({"project": "PAY"}, lambda t: t["PROJECT_ID"] == ids["payments"]),
        ({"project": "payments platform"}, lambda t: t["PROJECT_ID"] == ids["payments"]),
        ({"project": ids["mobile_web"]}, lambda t: t["PROJECT_ID"] == ids["mobile_web"]),
        ({"project": "Mobile App", "sprint": "current"}, lambda t: t["SPRINT_ID"] == ids["app_s2"]),
        ({"project": "Mobile App", "sprint": "previous"}, lambda t: t["SPRINT_ID"] == ids["app_s1"]),
        ({"project": "mobile web", "sprint": "Sprint 1"}, lambda t: t["SPRINT_ID"] == ids["web_s1"]),
        ({"assignee": "Ana Garcia"}, lambda t: t["ASSIGNEE_ID"] == ids["ana"]),
        ({"assignee": "lperez"}, lambda t: t["ASSIGNEE_ID"] == ids["luis"]),
        ({"assignee": "Luis"}, lambda t: t["ASSIGNEE_ID"] == ids["luis"]),
        ({"assignee": "me"}, lambda t: t["ASSIGNEE_ID"] == ids["boss"]),
        ({"assignee": None}, lambda t: t["ASSIGNEE_ID"] is None),
        ({"reporter": "Maria"}, lambda t: t["REPORTER_ID"] == ids["boss"]),
        ({"reporter": None}, lambda t: t["REPORTER_ID"] is None),
        ({"status": "in review"}, lambda t: t["STATUS"] == "IN_REVIEW"),
        ({"status": ["TODO", "in_progress"]}, lambda t: t["STATUS"] in ("TODO", "IN_PROGRESS")),
        ({"priority": "critical"}, lambda t: t["PRIORITY"] == "CRITICAL"),
        ({"issue_type": "bugs"}, lambda t: t["ISSUE_TYPE"] == "Bug"),
        ({"priority_name": "minor"}, lambda t: t["PRIORITY_NAME"] == "Minor"),
        ({"priority_name": ["TRIVIAL", "major"]}, lambda t: t["PRIORITY_NAME"] in ("Trivial", "Major")),
        ({"exclude": {"priority_name": "Trivial"}}, lambda t: t["PRIORITY_NAME"] != "Trivial"),
        ({"labels": ["senal debil", "UI"]}, lambda t: bool({"Señal débil", "ui"} & set(t["LABELS"]))),
        ({"components": "web ui"}, lambda t: "Web UI" in t["COMPONENTS"]),
        ({"fix_versions": "2.0.0"}, lambda t: "2.0.0" in t["FIX_VERSIONS"]),
        ({"affects_versions": ["1.9"]}, lambda t: "1.9" in t["AFFECTS_VERSIONS"]),
        ({"resolution": None}, lambda t: t["RESOLUTION"] is None),
        ({"resolution": "won't fix"}, lambda t: t["RESOLUTION"] == "Won't Fix"),
        ({"created": {"from": week_ago.isoformat(), "to": TODAY.isoformat()}},
         lambda t: in_days(t, week_ago, TODAY)),
        ({"due": {"to": TODAY.isoformat()}}, lambda t: t["EXPECTED_END_DATE"] <= TODAY),
        ({"overdue": True}, lambda t: t["EXPECTED_END_DATE"] < TODAY and is_open(t)),
        ({"open": True}, is_open),
        ({"open": False}, lambda t: not is_open(t)),
        ({"text": "ledger"}, lambda t: "ledger" in t["TITLE"]),
        ({"blocked": True}, lambda t: t["STATUS"] == "BLOCKED"),
        ({"blocked": False}, lambda t: t["STATUS"] != "BLOCKED"),
        ({"exclude": {"priority": "LOW", "components": COMPONENTS}},
         lambda t: t["PRIORITY"] != "LOW" and not t["COMPONENTS"]),
        ({"exclude": {"assignee": None}, "open": True}, lambda t: t["ASSIGNEE_ID"] is not None and is_open(t)),
    ]


def test_names_resolve_and_every_predicate_kind_lists_exactly_the_matching_tasks(mcp_url, data):
    ids, tasks = data
    cases = _cases(ids)

    async def go():
        async with http_session(mcp_url, ADMIN) as client:
            listed = {t.name: t for t in (await client.list_tools()).tools}
            return listed, [await call(client, "query_tasks", employee_id=ids["boss"], limit=100, **args)
                            for args, _ in cases]

    listed, results = run(go)
    schema = listed["query_tasks"].input_schema
    assert {"project", "labels", "fix_versions", "resolution", "created", "exclude", "group_by"} <= set(
        schema["properties"]) and schema["additionalProperties"] is False
    for (args, holds), (failed, payload) in zip(cases, results):
        assert not failed, (args, payload)
        truth = {k for k, t in tasks.items() if holds(t)}
        assert truth, args  # every case selects something, so an empty answer cannot pass
        assert ids_of(payload) == truth and payload["total"] == len(truth), args
        assert all(t["anchor"] == f"[TASK #{t['task_id']}]" for t in payload["tasks"])
        assert payload["answer"].startswith("Tasks ("), args  # the answer says what it ran


def test_the_examples_of_the_docs_run_as_written(mcp_url, data):
    ids, tasks = data
    section = (Path(__file__).parents[2] / "docs" / "INTEGRATIONS.md").read_text().split("### `query_tasks`")[1]
    examples = [json.loads(line) for line in section.split("```json")[1].split("```")[0].strip().splitlines()]

    async def go():
        async with http_session(mcp_url, ADMIN) as client:
            return [await call(client, "query_tasks", employee_id=ids["boss"], **args) for args in examples]

    results = run(go)
    assert len(examples) >= 8
    for args, (failed, payload) in zip(examples, results):
        assert not failed, (args, payload)
    unresolved_bugs = [t for t in tasks.values() if t["ISSUE_TYPE"] == "Bug" and t["RESOLUTION"] is None
                       and t["PROJECT_ID"] == ids["payments"]]
    assert results[1][1]["total"] == len(unresolved_bugs) and results[1][1]["answer"].startswith("Tasks (")


def test_the_answer_is_said_in_the_askers_language(mcp_url, data):
    ids, tasks = data

    async def go():
        async with http_session(mcp_url, ADMIN) as client:
            return await call(client, "query_tasks", employee_id=ids["boss"], lang="es", open=True,
                              project="PAY", returns="count")

    failed, payload = run(go)
    truth = sum(is_open(t) and t["PROJECT_ID"] == ids["payments"] for t in tasks.values())
    assert not failed and payload["answer"].startswith(f"Tareas (sin terminar, en Payments Platform): {truth} — ")


def test_counts_points_and_groups_cover_every_visible_row(mcp_url, data):
    ids, tasks = data
    mine = visible(tasks, ids["ana"])

    async def go():
        async with http_session(mcp_url, ADMIN) as admin, http_session(mcp_url, ANA) as ana:
            return (await call(admin, "query_tasks", employee_id=ids["boss"], open=True, returns="count", limit=1),
                    await call(admin, "query_tasks", employee_id=ids["boss"], returns="points", issue_type="Story"),
                    await call(admin, "query_tasks", employee_id=ids["boss"], group_by="assignee", open=True),
                    await call(admin, "query_tasks", employee_id=ids["boss"], group_by="project",
                               measure="points"),
                    await call(ana, "query_tasks", group_by="label"),
                    await call(ana, "query_tasks", returns="count"),
                    await call(admin, "query_tasks", employee_id=ids["boss"], returns="field", field="created",
                               order="created", descending=True, project="PAY"))

    count, points, by_assignee, by_project, ana_labels, ana_count, newest = run(go)
    open_tasks = [t for t in tasks.values() if is_open(t)]
    assert count[1]["total"] == len(open_tasks) and str(len(open_tasks)) in count[1]["figures"]
    stories = [t for t in tasks.values() if t["ISSUE_TYPE"] == "Story"]
    assert points[1]["points"] == sum(t["STORY_POINTS"] for t in stories) and points[1]["total"] == len(stories)
    truth = Counter(t["ASSIGNEE_ID"] for t in open_tasks)
    assert {g["key"]: g["count"] for g in by_assignee[1]["groups"]} == dict(truth)
    by_points = Counter()
    for t in tasks.values():
        by_points[t["PROJECT_ID"]] += t["STORY_POINTS"]
    assert {g["key"]: g["points"] for g in by_project[1]["groups"]} == dict(by_points)
    assert {g["anchor"] for g in by_project[1]["groups"]} == {f"[PROJECT #{p}]" for p in by_points}
    # A developer's group-by covers only her own tasks.
    labels = Counter(label for t in mine.values() for label in t["LABELS"])
    assert {g["key"]: g["count"] for g in ana_labels[1]["groups"] if g["key"] is not None} == dict(labels)
    assert ana_count[1]["total"] == len(mine) and HIDDEN_LABEL not in json.dumps(ana_labels[1])
    pay = [t for t in tasks.values() if t["PROJECT_ID"] == ids["payments"]]
    latest = max(pay, key=lambda t: (t["CREATED_AT"], -t["TASK_ID"]))
    assert newest[1]["value"].startswith(latest["CREATED_AT"].date().isoformat())


def test_unknown_and_ambiguous_names_are_refused_with_their_candidates(mcp_url, data):
    ids, _ = data

    async def go():
        async with http_session(mcp_url, ADMIN) as client:
            ask = lambda **a: call(client, "query_tasks", employee_id=ids["boss"], **a)  # noqa: E731
            return [await ask(project="mobile"), await ask(project="Nowhere Land"), await ask(assignee="Ana"),
                    await ask(sprint="Sprint 1"), await ask(labels="backnd"), await ask(sprint="current"),
                    await ask(project=987654), await ask(returns="group")]

    mobile, nowhere, ana, sprint, label, relative, missing, group = run(go)
    assert all(failed for failed, _ in (mobile, nowhere, ana, sprint, label, relative, missing, group))
    assert "Mobile App" in mobile[1] and "Mobile Web" in mobile[1] and "several projects" in mobile[1]
    assert "search_projects" in nowhere[1] and "search_projects" in missing[1]
    assert f"Ana Garcia (id {ids['ana']})" in ana[1] and f"Ana Ruiz (id {ids['ana_ruiz']})" in ana[1]
    assert f"id {ids['app_s1']}" in sprint[1] and f"id {ids['web_s1']}" in sprint[1]
    assert "backend" in label[1].split("values:")[1].split(",")[0]  # the closest candidate first
    assert "project" in relative[1] and "group_by" in group[1]


def test_find_tasks_keeps_its_arguments_and_takes_a_project_by_name(mcp_url, data):
    ids, tasks = data

    async def go():
        async with http_session(mcp_url, ADMIN) as client:
            ask = lambda **a: call(client, "find_tasks", employee_id=ids["boss"], limit=100, **a)  # noqa: E731
            return (await ask(project=ids["mobile_web"]), await ask(project="Mobile Web"),
                    await ask(project="mobile web", open=True), await ask(project="mobile"))

    by_id, by_name, open_ones, ambiguous = run(go)
    truth = {k for k, t in tasks.items() if t["PROJECT_ID"] == ids["mobile_web"]}
    assert ids_of(by_id[1]) == ids_of(by_name[1]) == truth
    assert ids_of(open_ones[1]) == {k for k in truth if is_open(tasks[k])}
    assert ambiguous[0] and "Mobile App (id" in ambiguous[1] and "Mobile Web (id" in ambiguous[1]


def test_hostile_values_are_refused_before_anything_runs(mcp_url, data):
    ids, _ = data
    huge = "x" * 100_000

    async def go():
        async with http_session(mcp_url, ANA) as client:
            return [await call(client, "query_tasks", labels=["a"] * 5000),
                    await call(client, "query_tasks", text=huge),
                    await call(client, "query_tasks", project=huge),
                    await call(client, "query_tasks", labels=5),
                    await call(client, "query_tasks", limit=10_000),
                    await call(client, "query_tasks", created={"from": "yesterday"}),
                    await call(client, "query_tasks", created={"from": "2026-02-30"}),
                    await call(client, "query_tasks", text="a b c d e f g h i j k l"),
                    await call(client, "query_tasks", group_by="title"),
                    await call(client, "query_tasks", where=[{"field": "status"}])]

    results = run(go)
    for failed, message in results:
        assert failed and message and len(message) < 2000, message[:200]
        assert huge[:1000] not in message


def test_a_hidden_value_reads_exactly_as_a_missing_one(mcp_url, data):
    async def go():
        async with http_session(mcp_url, ANA) as client:
            return (await call(client, "query_tasks", labels=HIDDEN_LABEL),
                    await call(client, "query_tasks", labels="zebra-incidenx"))

    hidden, missing = run(go)
    assert hidden[0] and missing[0]
    assert hidden[1].replace(HIDDEN_LABEL, "N") == missing[1].replace("zebra-incidenx", "N")
    assert HIDDEN_LABEL not in hidden[1].replace(repr(HIDDEN_LABEL), "")


def ask(c, who, message, **extra):
    return c.post("/api/v1/chat", json={"employee_id": who, "message": message, **extra}, headers=AUTH)


def test_the_model_asks_by_names_in_chat_and_what_it_was_shown_is_citable(sqlite_engine, sqlite_settings, data):
    ids, tasks = data
    critical = sorted(k for k, t in tasks.items() if t["PRIORITY"] == "CRITICAL" and is_open(t)
                      and t["PROJECT_ID"] == ids["payments"])
    script = [Reply.tools(("c1", "query_tasks", json.dumps({"project": "Payments Platform", "priority": "critical",
                                                             "open": True, "returns": "count"})),
                          ("c2", "query_tasks", json.dumps({"labels": ["x"] * 500})),
                          ("c3", "query_tasks", json.dumps({"project": 5})),
                          ("c4", "find_tasks", json.dumps({"project": "PAY", "limit": 100})),
                          ("c5", "query_tasks", json.dumps({"open": "yes", "limit": "ten"}))),
              Reply.plain(f"There are {len(critical)}: [TASK #{critical[0]}].")]
    with FakeLLM(*script) as llm, client_for(sqlite_settings, sqlite_engine, **llm_settings(llm)) as c:
        response = ask(c, ids["boss"], "how many critical open tasks does payments have?")
    assert response.status_code == 200
    counted, hostile, wrong_id, found, wrong_type = (tool_result(llm.requests[1], i) for i in range(5))
    assert counted["success"] and counted["total"] == len(critical)
    assert {t["task_id"] for t in counted["tasks"]} == set(critical)
    assert hostile == {"success": False, "error": "labels: must be at most 20 items"}
    assert not wrong_id["success"] and "search_projects" in wrong_id["error"]
    assert wrong_type == {"success": False, "error": "limit: 'ten' is not of type 'integer'"}
    assert ids_of(found) == {k for k, t in tasks.items() if t["PROJECT_ID"] == ids["payments"]}
    body = response.json()
    assert f"[TASK #{critical[0]}]" in body["citations"]


def test_query_tasks_is_bounded_by_the_conversations_scope(sqlite_engine, sqlite_settings, data):
    ids, tasks = data
    script = [Reply.tools(("c1", "query_tasks", json.dumps({"returns": "count"})),
                          ("c2", "query_tasks", json.dumps({"returns": "count", "project": "Mobile Web"})),
                          ("c3", "query_tasks", json.dumps({"sprint": "current"}))),
              Reply.plain("Counted.")]
    with FakeLLM(*script) as llm, client_for(sqlite_settings, sqlite_engine, **llm_settings(llm)) as c:
        assert ask(c, ids["boss"], "count the tasks", rag_scope=ids["mobile_app"]).status_code == 200
    scoped, named, current = (tool_result(llm.requests[1], i) for i in range(3))
    assert scoped["total"] == sum(t["PROJECT_ID"] == ids["mobile_app"] for t in tasks.values())
    assert named["total"] == sum(t["PROJECT_ID"] == ids["mobile_web"] for t in tasks.values())
    assert ids_of(current) == {k for k, t in tasks.items() if t["SPRINT_ID"] == ids["app_s2"]}
