"""The console over HTTP (no browser): its session, CSRF and same-origin checks, the API's cookie rule, bad
input as 4xx pages that change nothing, and what each page shows. The browser tests (test_console_browser.py)
drive the same pages in Chromium."""

from __future__ import annotations

import json
import re
from urllib.parse import quote

import pytest
from pydantic import SecretStr
from fastapi.testclient import TestClient

from app.api.main import create_app
from app.auth import CONSOLE_COOKIE, csrf_token
from app.domain import Scope
from app.services import conversations, eval_results
from app.services.access_explainer import explain_search
from app.services.search import resolve_caller
from app.entities import TASKS
from tests.api.chat_data import AUTH, client_for, llm_settings, seed
from tests.fake_llm import FakeLLM, Reply
from tests.support import task

ADMIN, BOT = "test-token", "bot-token"
ORIGIN = "http://testserver"


@pytest.fixture
def ids(sqlite_engine, sqlite_settings):
    return seed(sqlite_engine, sqlite_settings)


@pytest.fixture
def console(sqlite_settings, sqlite_engine, ids):
    settings = sqlite_settings.model_copy(update={
        "run_worker": False, "backfill_on_startup": False,
        "api_token_scopes": SecretStr(json.dumps([{"token": BOT, "scope": "bot"}]))})
    with TestClient(create_app(settings, engine=sqlite_engine), base_url=ORIGIN) as client:
        yield client


def login(client, token=ADMIN, **extra):
    return client.post("/console/login", data={"token": token, **extra}, follow_redirects=False)


def text_of(html: str) -> str:
    return re.sub(r"<[^>]+>", " ", html)


def test_every_page_needs_an_admin_session(console):
    pages = ["/console/access", "/console/queue", "/console/conversations", "/console/playground",
             "/console/quality", "/console/conversations/1?employee_id=1"]
    for path in pages:
        answer = console.get(path, follow_redirects=False)
        assert answer.status_code == 303 and answer.headers["location"] == f"/console/login?next={quote(path, safe='/')}"
    assert console.post("/console/queue/retry", follow_redirects=False).headers["location"].startswith("/console/login")
    wrong, bot = login(console, "nope"), login(console, BOT)
    assert wrong.status_code == 401 and "not a configured API token" in wrong.text and CONSOLE_COOKIE not in wrong.cookies
    assert bot.status_code == 403 and "needs an admin token" in bot.text and CONSOLE_COOKIE not in bot.cookies
    ok = login(console, next="/console/access?employee_id=2&question=login")  # back where the browser was going
    assert ok.status_code == 303 and ok.headers["location"] == "/console/access?employee_id=2&question=login"
    cookie = ok.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/" in cookie and "Max-Age=43200" in cookie
    for path in pages[:-1]:
        assert console.get(path).status_code == 200, path


def test_a_token_removed_from_the_configuration_or_made_a_bot_token_ends_its_sessions(sqlite_settings, sqlite_engine, ids):
    """The cookie holds the token, so the next start with other tokens refuses it on the pages and on /api/."""
    search = {"question": "login bug", "employee_id": ids["ana"]}
    for tokens, scopes in (("other-token", []), ("other-token", [{"token": ADMIN, "scope": "bot"}])):
        settings = sqlite_settings.model_copy(update={
            "run_worker": False, "backfill_on_startup": False, "api_tokens": SecretStr(tokens),
            "api_token_scopes": SecretStr(json.dumps(scopes))})
        with TestClient(create_app(settings, engine=sqlite_engine), base_url=ORIGIN) as client:
            client.cookies.set(CONSOLE_COOKIE, ADMIN)
            page = client.get("/console/access", follow_redirects=False)
            assert page.status_code == 303 and page.headers["location"].startswith("/console/login"), scopes
            api = client.post("/api/v1/rag/reindex", json={}, headers={"X-CSRF-Token": csrf_token(ADMIN)})
            assert api.status_code == (403 if scopes else 401), scopes  # a bot token is not an admin session
            if not scopes:
                assert client.post("/api/v1/search", json=search,
                                   headers={"X-CSRF-Token": csrf_token(ADMIN)}).status_code == 401


def test_the_next_page_after_login_never_leaves_the_console(console):
    for target in ("//evil.example/console/", "https://evil.example/", "/console/..//evil", "/docs", "/\\evil",
                   "javascript:alert(1)", "https:evil.example", "%2F%2Fevil.example", "/console/x?to=//evil.example",
                   "/console\\..\\evil", "\\\\evil.example/console/"):
        assert login(console, next=target).headers["location"] == "/console/access", target


def test_logout_ends_the_session(console):
    login(console)
    csrf = csrf_token(ADMIN)
    assert console.post("/console/logout", data={"csrf": "stale"}).status_code == 403  # still logged in
    out = console.post("/console/logout", data={"csrf": csrf}, follow_redirects=False)
    assert out.status_code == 303 and f'{CONSOLE_COOKIE}=""' in out.headers["set-cookie"]
    assert console.get("/console/queue", follow_redirects=False).status_code == 303


def test_pages_forbid_inline_script_framing_and_caching(console):
    login(console)
    headers = console.get("/console/access").headers
    assert "script-src 'self'" in headers["content-security-policy"] and "'unsafe-inline'" not in headers[
        "content-security-policy"]
    assert "frame-ancestors 'none'" in headers["content-security-policy"]
    assert headers["cache-control"] == "no-store" and headers["x-content-type-options"] == "nosniff"
    assert console.get("/console/static/console.js").status_code == 200  # served by the app, from the package


def test_every_console_answer_forbids_framing_and_sniffing_even_when_no_page_answers(console):
    """What FastAPI or a middleware answers under /console (an unknown path, a wrong method, a malformed path
    parameter, a body over the limit) carries the page headers too: any console URL may be framed otherwise."""
    login(console)
    answers = {"page": console.get("/console/queue"), "error page": console.get("/console/access?mode=x"),
               "unknown path": console.get("/console/nope"), "wrong method": console.get("/console/logout"),
               "path parameter": console.get("/console/conversations/abc?employee_id=1"),
               "body too large": console.post("/console/queue/retry", content=b"x" * (9 * 1024 * 1024),
                                              headers={"Content-Type": "application/x-www-form-urlencoded"}),
               "login page": TestClient(console.app, base_url=ORIGIN).get("/console/login")}
    assert [a.status_code for a in answers.values()] == [200, 422, 404, 405, 422, 413, 200]
    for what, answer in answers.items():
        policy = answer.headers.get("content-security-policy", "")
        assert "frame-ancestors 'none'" in policy and "default-src 'none'" in policy, what
        assert answer.headers.get("x-frame-options") == "DENY" and answer.headers.get("x-content-type-options") == "nosniff", what
        assert answer.headers.get("cache-control") == "no-store", what
    script = console.get("/console/static/console.js")
    assert script.headers["x-content-type-options"] == "nosniff" and "no-store" not in script.headers.get("cache-control", "")
    assert "content-security-policy" not in console.get("/docs").headers  # the API's own pages are not the console's


def test_the_cookie_alone_never_authenticates_the_api(console, ids):
    login(console)
    body = {"question": "login bug", "employee_id": ids["ana"]}
    assert console.post("/api/v1/search", json=body).status_code == 401  # a cross-site form could do this
    assert console.post("/api/v1/search", json=body, headers={"X-CSRF-Token": "0" * 64}).status_code == 401
    assert console.post("/api/v1/search", json=body, headers={"X-CSRF-Token": csrf_token(ADMIN)}).status_code == 200
    console.cookies.clear()
    assert console.post("/api/v1/search", json=body, headers={"X-CSRF-Token": csrf_token(ADMIN)}).status_code == 401


def test_forms_need_the_csrf_value_and_the_same_origin_and_change_nothing_otherwise(console, sqlite_engine):
    login(console)
    task(sqlite_engine, "Will fail")
    dirty = sqlite_engine.conn.execute("SELECT DIRTY_ID FROM RAG_DIRTY").fetchall()[-1][0]
    sqlite_engine.record_failure({dirty: 60.0}, "boom")
    csrf = csrf_token(ADMIN)
    refused = [console.post("/console/queue/retry", data={"retry": "1"}),
               console.post("/console/queue/retry", data={"csrf": "x" * 64}),
               console.post("/console/queue/retry", data={"csrf": csrf}, headers={"Origin": "https://evil.example"}),
               console.post("/console/queue/retry", content=json.dumps({"csrf": csrf}),
                            headers={"Content-Type": "application/json"})]
    assert [r.status_code for r in refused] == [403, 403, 403, 415]
    assert sqlite_engine.status(5).failing == 1  # nothing was retried
    done = console.post("/console/queue/retry", data={"csrf": csrf}, headers={"Origin": ORIGIN}, follow_redirects=False)
    assert done.status_code == 303 and done.headers["location"] == "/console/queue?released=1"
    assert sqlite_engine.status(5).failing == 0
    assert "Released 1 failing" in console.get(done.headers["location"]).text


@pytest.mark.parametrize("query, status, says", [
    ("employee_id=abc", 422, "employee_id must be a whole number"),
    ("employee_id=1&question=x&top_k=500", 422, "top_k must be a whole number from 1 to 50"),
    ("employee_id=1&question=x&mode=fuzzy", 422, "mode must be one of hybrid, vector, lexical"),
    ("employee_id=1&question=x&project=-3", 422, "project must be a positive id"),
    ("employee_id=1&source_type=comment&source_id=1", 422, "source_type must be one of"),
    ("employee_id=424242&question=login", 404, "employee 424242 does not exist"),
    ("employee_id=1&question=" + "x" * 2001, 422, "longer than 2000"),
    # more digits than int() converts (4300): the field's own 422 page, not the API's JSON ValueError answer
    ("employee_id=" + "9" * 5000, 422, "employee_id must be a whole number"),
    ("employee_id=1&question=x&top_k=" + "9" * 5000, 422, "top_k must be a whole number from 1 to 50"),
    ("employee_id=1&source_type=task&source_id=" + "1" * 5000, 422, "source_id must be a whole number"),
])
def test_bad_input_is_a_4xx_page_that_names_the_field(console, query, status, says):
    login(console)
    answer = console.get(f"/console/access?{query}")
    assert answer.status_code == status and says in answer.text and answer.headers["content-type"].startswith("text/html")


def test_huge_ids_on_every_page_are_its_4xx_page_and_leading_zeros_still_count(console, ids):
    login(console)
    for path in ("/console/conversations?employee_id=", "/console/playground?employee_id=1&conversation_id=",
                 "/console/queue?released="):
        answer = console.get(path + "7" * 5000)
        assert answer.status_code == 422 and answer.headers["content-type"].startswith("text/html"), path
        assert "must be a whole number" in answer.text, path
    padded = console.get("/console/conversations", params={"employee_id": "0" * 40 + str(ids["ana"])})
    assert padded.status_code == 200 and f'value="{ids["ana"]}" selected' in padded.text


def test_the_explainer_shows_visible_hits_with_reasons_and_withheld_ones_only_to_the_admin_view(
        console, sqlite_engine, ids):
    login(console)
    ana = resolve_caller(sqlite_engine, ids["ana"])
    expected = explain_search(sqlite_engine, ana, "refund payment sdk", 8, Scope(), "hybrid")
    assert expected.withheld  # Luis's refund task and the unassigned SDK task
    admin = console.get("/console/access", params={"employee_id": ids["ana"], "question": "refund payment sdk"}).text
    mine = console.get("/console/access", params={"employee_id": ids["ana"], "question": "refund payment sdk",
                                                  "view": "employee"}).text
    for html in (admin, mine):
        assert f'id="withheld-count">{len(expected.withheld)}<' in html
        assert f'id="visible-count">{len(expected.visible)}<' in html
    assert "assigned to Luis Perez" in admin and "unassigned task: managers and admins only" in admin
    for e in expected.withheld:
        assert e.hit.content.splitlines()[0] in text_of(admin)
        assert e.hit.content.splitlines()[0] not in text_of(mine) and e.verdict.reason not in mine
    boss = console.get("/console/access", params={"employee_id": ids["boss"], "question": "refund payment sdk"}).text
    assert 'id="withheld-count">0<' in boss and "manager sees all" in boss


def test_the_entity_check_says_yes_or_no_and_why(console, ids):
    login(console)

    def verdict(employee, source_type, source_id):
        html = console.get("/console/access", params={"employee_id": employee, "source_type": source_type,
                                                      "source_id": source_id}).text
        return " ".join(text_of(re.search(r'id="entity-verdict"[^>]*>(.*?)</p>', html, re.S).group(1)).split())

    assert verdict(ids["ana"], "task", ids["login"]).endswith(f"can see task #{ids['login']}: assigned to Ana Garcia.")
    assert verdict(ids["ana"], "task", ids["refund"]).endswith(
        f"cannot see task #{ids['refund']}: assigned to Luis Perez.")
    assert verdict(ids["ana"], "doc", ids["policy"]).endswith("organisation-wide document.")
    assert verdict(ids["ana"], "task", 999999) == "There is no task #999999."


def test_the_entity_check_as_the_employee_says_no_without_why_or_whether_it_exists(console, ids):
    """The employee view never names what withholds an entity (who it is assigned to) nor tells a missing one
    from a withheld one; what they can see keeps its reason."""
    login(console)

    def as_ana(source_id):
        html = console.get("/console/access", params={"employee_id": ids["ana"], "source_type": "task",
                                                      "source_id": source_id, "view": "employee"}).text
        return " ".join(text_of(re.search(r'id="entity-verdict"[^>]*>(.*?)</p>', html, re.S).group(1)).split())

    withheld, missing = as_ana(ids["refund"]), as_ana(999999)
    assert withheld == f"Ana Garcia cannot see task #{ids['refund']} (why not: the admin view)."
    assert "Luis" not in withheld and missing == "Ana Garcia cannot see task #999999 (why not: the admin view)."
    assert as_ana(ids["login"]).endswith(f"can see task #{ids['login']}: assigned to Ana Garcia.")


def test_conversations_list_and_turns_with_citations_linking_to_the_explainer(console, sqlite_engine, ids):
    login(console)
    ana = resolve_caller(sqlite_engine, ids["ana"])
    conv = conversations.create(sqlite_engine, ana, str(ids["mobile"]), True, "login bug?")
    anchor = f"[TASK #{ids['login']}]"
    sqlite_engine.append_turn(conv.conversation_id, "who fixes the login bug?", f"Ana does {anchor}.", [anchor])
    listed = console.get("/console/conversations", params={"employee_id": ids["ana"]}).text
    assert f"/console/conversations/{conv.conversation_id}?employee_id={ids['ana']}" in listed
    assert "Mobile App" in listed and "pinned" in listed
    detail = console.get(f"/console/conversations/{conv.conversation_id}", params={"employee_id": ids["ana"]}).text
    assert "who fixes the login bug?" in detail and f"Ana does {anchor}." in detail
    assert f"/console/access?employee_id={ids['ana']}&amp;source_type=task&amp;source_id={ids['login']}" in detail
    # read as anyone else, the conversation does not exist
    other = console.get(f"/console/conversations/{conv.conversation_id}", params={"employee_id": ids["luis"]})
    assert other.status_code == 404


def test_the_playground_page_sets_the_stage_for_its_script(console, sqlite_engine, ids):
    login(console)
    boss = resolve_caller(sqlite_engine, ids["boss"])
    pinned = conversations.create(sqlite_engine, boss, str(ids["payments"]), True, "payments")
    fresh = console.get("/console/playground", params={"employee_id": ids["boss"]}).text
    assert 'data-scope="all"' in fresh and 'data-pinned="false"' in fresh and 'data-conversation-id=""' in fresh
    opened = console.get("/console/playground", params={"employee_id": ids["boss"],
                                                        "conversation_id": pinned.conversation_id}).text
    assert f'data-scope="{ids["payments"]}"' in opened and 'data-pinned="true"' in opened
    assert 'data-scope-label="Payments Platform"' in opened
    assert console.get("/console/playground", params={"employee_id": ids["ana"],  # not Ana's
                                                     "conversation_id": pinned.conversation_id}).status_code == 404


def test_each_turn_shows_its_scope_chunks_citations_and_llm_error_and_a_withdrawn_one_only_to_the_operator(
        sqlite_settings, sqlite_engine, ids):
    """A real chat (the LLM answers 500: the extractive answer stands in, llm_error bad_response) stores what the
    answer rested on; reassigning the task it cited withdraws it for Ana."""
    with FakeLLM(Reply.status(500)) as llm, client_for(sqlite_settings, sqlite_engine, **llm_settings(llm)) as c:
        answer = c.post("/api/v1/chat", headers=AUTH, json={"employee_id": ids["ana"], "message": "login bug",
                                                              "rag_scope": ids["mobile"]}).json()
        login(c)
        where = {"employee_id": ids["ana"], "conversation_id": answer["conversation_id"]}
        detail = console_text(c.get(f"/console/conversations/{answer['conversation_id']}",
                                    params={"employee_id": ids["ana"]}).text)
        assert answer["llm_error"] == "bad_response" and answer["citations"]
        assert "scope Mobile App" in detail and "LLM not used: bad_response" in detail
        assert f"Cited: {answer['citations'][0]}" in detail and f"Given {len(answer['results'])} chunk" in detail
        assert "withdrawn" not in detail
        sqlite_engine.update(TASKS, ids["login"], {"ASSIGNEE_ID": ids["luis"]})  # Ana may no longer see it
        operator = console_text(c.get(f"/console/conversations/{answer['conversation_id']}",
                                      params={"employee_id": ids["ana"]}).text)
        as_ana = console_text(c.get("/console/playground", params=where).text)
    quoted = " ".join(next(line for line in answer["answer"].splitlines() if answer["citations"][0] in line).split())
    assert "withdrawn" in operator and quoted in operator  # the operator sees what was said, marked
    assert "Withdrawn: this answer rested on something this employee can no longer see." in as_ana
    assert quoted not in as_ana and "Given " not in as_ana and "Cited:" not in as_ana


def console_text(html: str) -> str:
    return " ".join(text_of(html).split())


BEIR_FIGURES = {"ndcg@10": 0.61, "recall@10": 0.7, "recall@100": 0.9, "mrr@10": 0.55, "query_ms_p50": 3.2,
                "query_ms_p95": 8.0, "documents": 5, "chunks": 6, "queries": 3}


@pytest.mark.parametrize("golden", [
    {}, {"questions": 1, "pairs": 1, "modes": {}}, {"questions": 1, "pairs": 1, "modes": {"hybrid": {}}},
    {"questions": 1, "pairs": 1, "modes": {"hybrid": {"all": {"recall@5": "0.5", "mrr@10": 0.5, "pairs": 1}}}},
    {"questions": 1, "pairs": 1, "modes": {"hybrid": {"all": {"recall@5": 0.5, "mrr@10": 0.5, "pairs": 1},
                                                       "by_role": []}}},
], ids=["no modes", "empty modes", "no figures", "a number as text", "a split that is not an object"])
def test_a_result_file_of_another_shape_is_reported_on_the_quality_page_not_a_500(console, sqlite_settings, golden):
    """A golden.json that parses but is not what this ragctl writes (an older one, an edited one) is named as
    unreadable, and the BEIR run beside it is still shown."""
    eval_results.save(sqlite_settings.eval_results_dir, "beir", {"corpus": "c.jsonl"}, {"hybrid": BEIR_FIGURES})
    eval_results.save(sqlite_settings.eval_results_dir, "golden", {"golden": "g.jsonl"}, golden)
    login(console)
    page = console.get("/console/quality")
    assert page.status_code == 200
    assert "golden.json: not a ragctl eval result (results." in page.text
    assert 'id="beir-table"' in page.text and "0.6100" in page.text


def test_a_beir_file_of_another_shape_is_reported_too(console, sqlite_settings):
    eval_results.save(sqlite_settings.eval_results_dir, "beir", {}, {"hybrid": {**BEIR_FIGURES, "ndcg@10": None}})
    login(console)
    page = console.get("/console/quality")
    assert page.status_code == 200 and "beir.json: not a ragctl eval result (results.hybrid.ndcg@10:" in page.text
