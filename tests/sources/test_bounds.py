"""Issue 33, findings 1, 2, 5: every response and every pass bounded, pagination that stops when the server makes no
progress, comments handed on per issue, and a token sent only to its origin — each against a loopback server that
behaves badly, on real sockets. The tests judge bounds and order (how many requests, what was written, which error),
never timing."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from click.testing import CliRunner
from pydantic import SecretStr, ValidationError

from app.cli import CliEnv, cli
from app.config import Settings
from app.entities import COMMENTS, TASKS
from app.sources import jira_rest, report
from app.sources.bounds import PassBounds, SourceBoundError
from app.sources.github import GitHubIssues, github_client
from app.sources.http import SourceClient
from app.sources.jira_rest import JiraREST, jira_client
from app.sources.pipeline import run_pass
from tests.sources.fake_hostile import (HostileJira, Reply, ScriptedServer, endless, endless_github_route,
                                        github_issue, json_reply, seeded)

OVERLAP = dt.timedelta(minutes=2)
SMALL = PassBounds(response_s=30, response_bytes=64 * 1024, pass_s=120, pass_pages=50, issue_comments=300)


def reader(fake: HostileJira, bounds: PassBounds = SMALL, page_size: int = 2) -> JiraREST:
    auth = {"pat": fake.pat} if fake.api == "2" else {"email": fake.email, "api_token": fake.api_token}
    client, api = jira_client(fake.url, bounds=bounds, sleep=lambda s: None, max_retries=0, **auth)
    return JiraREST(client, api, ["PAY"], story_points_field=None, page_size=page_size)


def tasks(engine) -> list[str]:
    keys, after = [], None
    while True:
        page = engine.list_records(TASKS, [], after, 500)
        keys += [r["external_key"] for r in page.items]
        if not page.more:
            return sorted(keys)
        after = page.items[-1]["task_id"]


# --- one response ----------------------------------------------------------------------------------

def test_a_response_trickling_a_byte_at_a_time_is_cut_by_its_total_budget():
    route = lambda path, query, server: Reply(200, {"Content-Type": "application/json"}, endless(b" "),
                                              pause_s=0.2, length=10**6)
    with ScriptedServer(route) as server:
        client = SourceClient(server.url, bounds=PassBounds(response_s=1.0), max_retries=3, sleep=lambda s: None)
        with pytest.raises(SourceBoundError, match="RAG_SYNC_RESPONSE_TIMEOUT_S"):
            client.get_json("/slow")
        assert len(server.requests) == 1  # a bound hit is not retried
        assert server.sent_bytes < 1000  # cut long before the body it announced


def test_a_response_over_the_byte_cap_is_cut_while_streaming_and_refused_at_once_when_declared():
    cap = 256 * 1024
    streamed = lambda path, query, server: Reply(200, {"Content-Type": "application/json"},
                                                 (b"[" if n == 0 else b'"x",' * 1024 for n in range(10**6)))
    with ScriptedServer(streamed) as server:
        client = SourceClient(server.url, bounds=PassBounds(response_bytes=cap), sleep=lambda s: None)
        with pytest.raises(SourceBoundError, match="RAG_SYNC_MAX_RESPONSE_BYTES"):
            client.get_json("/huge")
        assert client.meter.bytes <= cap + 64 * 1024  # read streamed: at most one chunk past the cap
    declared = lambda path, query, server: Reply(200, {"Content-Type": "application/json"}, endless(b" "),
                                                 length=300 * 1024 * 1024)
    with ScriptedServer(declared) as server:
        client = SourceClient(server.url, bounds=PassBounds(response_bytes=cap), sleep=lambda s: None)
        with pytest.raises(SourceBoundError, match="declares 314572800 bytes"):
            client.get_json("/huge")
        assert client.meter.bytes == 0


# --- one pass --------------------------------------------------------------------------------------

endless_github = endless_github_route()


def test_endless_fresh_pages_end_at_the_page_cap_and_keep_what_was_written(sqlite_engine):
    with ScriptedServer(endless_github) as server:
        source = GitHubIssues(github_client("t", server.url, bounds=PassBounds(pass_pages=6), sleep=lambda s: None),
                              "o/r")
        with pytest.raises(SourceBoundError, match="RAG_SYNC_MAX_PAGES"):
            run_pass(sqlite_engine, source, overlap=OVERLAP, reconcile=True)
        assert len(server.requests) == 6
    assert len(tasks(sqlite_engine)) == 600  # the six pages read are written (the seventh was never asked)
    assert sqlite_engine.sync_cursor("github:o/r") is not None


def test_endless_fresh_pages_end_at_the_pass_budget():
    slow = lambda path, query, server: Reply(**{**endless_github(path, query, server).__dict__, "pause_s": 0.2})
    with ScriptedServer(slow) as server:
        source = GitHubIssues(github_client("t", server.url, bounds=PassBounds(pass_s=1.0), sleep=lambda s: None),
                              "o/r")
        with pytest.raises(SourceBoundError, match="RAG_SYNC_PASS_BUDGET_S"):
            for _ in source.pages(None):
                pass
        assert 1 <= len(server.requests) < 100


def test_a_github_issue_with_endless_comment_pages_keeps_its_first_comments_up_to_the_cap(caplog):
    """The cap bounds one issue, never the pass: the issue is handed on with its first 250 comments (a warning names
    it), so one issue cannot hold every later change."""
    with ScriptedServer(endless_github_route(comments=True)) as server:
        source = GitHubIssues(github_client("t", server.url, bounds=PassBounds(issue_comments=250),
                                            sleep=lambda s: None), "o/r")
        [page] = list(source.pages(None))
        assert [len(issue.comments) for issue in page] == [250]
        assert len(server.requests) == 1 + 3  # the issue page, then three comment pages (the third reaches 250)
        assert "o/r#1 lists 250 or more comments: its first 250 are kept" in caplog.text


def test_a_link_to_a_page_already_read_stops_the_listing():
    def route(path, query, server):
        page = int(query.get("page", "1"))
        back = f'<{server.url}{path}?page={max(1, page - 1) if page > 2 else 2}&per_page=100>; rel="next"'
        return json_reply(json.dumps([github_issue(page)]).encode(), {"Link": back})

    with ScriptedServer(route) as server:
        source = GitHubIssues(github_client("t", server.url, sleep=lambda s: None), "o/r")
        with pytest.raises(SourceBoundError, match="no progress.*already read"):
            list(source.pages(None))
        assert [q.get("page") for _, q, _ in server.requests] == [None, "2"]  # page 2 links back to itself


# --- no progress: Jira ------------------------------------------------------------------------------

def test_a_repeating_v3_next_page_token_ends_the_pass_and_the_next_resumes(sqlite_engine):
    with seeded(HostileJira("3", "repeat_token"), 6, comments=0) as fake:
        with pytest.raises(SourceBoundError, match="nextPageToken already followed"):
            run_pass(sqlite_engine, reader(fake), overlap=OVERLAP, reconcile=False)
        assert tasks(sqlite_engine) == ["PAY-1", "PAY-2", "PAY-3", "PAY-4"]  # two pages written, then stopped
        assert len(fake.searches()) == 2
        fake.mode = "well-behaved"
        run_pass(sqlite_engine, reader(fake), overlap=OVERLAP, reconcile=False)
        assert tasks(sqlite_engine) == [f"PAY-{n}" for n in range(1, 7)]
        since = fake.searches()[2]["jql"][0]
        assert 'updated >= "2026-11-02 09:02"' in since  # resumed from the cursor of page 2 (minute 4 − overlap)


def test_a_v2_search_that_ignores_start_at_stops_and_keeps_its_first_page(sqlite_engine):
    with seeded(HostileJira("2", "ignore_start"), 5, minutes=lambda n: 5, comments=0) as fake:
        with pytest.raises(SourceBoundError, match="startAt ignored"):
            run_pass(sqlite_engine, reader(fake), overlap=OVERLAP, reconcile=False)
        assert tasks(sqlite_engine) == ["PAY-1", "PAY-2"]
        assert len(fake.searches()) == 3  # the page, its minute re-read from its bound, then startAt=2 answered as 0
        with pytest.raises(SourceBoundError, match="keys read already"):
            reader(fake).all_keys()  # the reconciliation's listing: total 1e9, the same keys again


def test_a_key_listing_that_ends_short_of_its_total_deletes_nothing(sqlite_engine):
    with seeded(HostileJira("2", "well-behaved"), 3, comments=0) as fake:
        run_pass(sqlite_engine, reader(fake), overlap=OVERLAP, reconcile=True)
        del fake.issues["PAY-3"]
        fake.mode = "short_total"  # the listing ends after PAY-1, PAY-2 while saying 1e9
        with pytest.raises(SourceBoundError, match="keys ended at 2 of a total of 1000000000; nothing deleted"):
            run_pass(sqlite_engine, reader(fake), overlap=OVERLAP, reconcile=True)
    assert tasks(sqlite_engine) == ["PAY-1", "PAY-2", "PAY-3"]


def test_comment_pages_that_repeat_with_a_total_of_1e9_end_the_pass(sqlite_engine):
    with seeded(HostileJira("2", "comments_repeat", embedded_comments=2), 1, comments=3) as fake:
        with pytest.raises(SourceBoundError, match="only comments read already"):
            run_pass(sqlite_engine, reader(fake), overlap=OVERLAP, reconcile=False)
        assert fake.comment_pages == 2
    assert tasks(sqlite_engine) == []  # the issue's page was never whole: nothing of it written


def test_fresh_comment_pages_with_a_total_of_1e9_keep_the_issues_first_comments(sqlite_engine, caplog):
    """An issue whose comments never end is written with its first 300 (the cap), and the pass goes on: one issue
    never holds every later change."""
    with seeded(HostileJira("2", "comments_endless", embedded_comments=2), 1, comments=3) as fake:
        counts = run_pass(sqlite_engine, reader(fake), overlap=OVERLAP, reconcile=False)
        assert fake.comment_pages == 3 and counts.failed == 0
    assert len(tasks(sqlite_engine)) == 1
    assert len(sqlite_engine.list_records(COMMENTS, [], None, 500).items) == 300
    assert "its first 300 are kept" in caplog.text


def test_an_issue_s_comments_go_to_the_pipeline_with_it_never_a_whole_page_s(monkeypatch, sqlite_engine):
    monkeypatch.setattr(jira_rest, "COMMENT_FLUSH", 5)
    with seeded(HostileJira("2", "well-behaved", embedded_comments=1), 4, comments=4) as fake:
        pages = list(reader(fake, page_size=100).pages(None))
        assert [len(p) for p in pages] == [2, 2]  # one search page, handed on as soon as 5 comments were held
        assert len(fake.searches()) == 1
        counts = run_pass(sqlite_engine, reader(fake, page_size=100), overlap=OVERLAP, reconcile=False)
    assert counts.created == 4 and len(sqlite_engine.list_records(COMMENTS, [], None, 500).items) == 16


# --- a bound hit, reported ---------------------------------------------------------------------------

def test_a_pass_that_hits_a_bound_says_so_in_the_cli_in_status_and_the_log(sqlite_settings, sqlite_engine, caplog):
    with seeded(HostileJira("3", "repeat_token"), 400, comments=0) as fake:
        settings = sqlite_settings.model_copy(update={
            "jira_url": fake.url, "jira_email": fake.email, "jira_api_token": SecretStr(fake.api_token),
            "jira_projects": "PAY", "sync_max_retries": 0})
        env = CliEnv(settings, sqlite_engine)
        result = CliRunner().invoke(cli, ["sync", "jira", "--once", "--no-index"], obj=env)
        assert result.exit_code == 1
        assert "nextPageToken already followed" in result.output and "resumes from their cursor" in result.output
        assert "ended early" in caplog.text
        status = CliRunner().invoke(cli, ["status"], obj=env)
        assert f"sync:     jira:{fake.url} at " in status.output
        assert "200 created" in status.output and "ended by: SourceBoundError" in status.output
        last = json.loads(CliRunner().invoke(cli, ["status", "--json"], obj=env).output)["last_passes"]
        assert "nextPageToken" in last[f"jira:{fake.url}"]["error"]
        fake.mode = "well-behaved"
        assert CliRunner().invoke(cli, ["sync", "jira", "--once", "--no-index"], obj=env).exit_code == 0
        assert "error" not in report.last_passes(sqlite_engine)[f"jira:{fake.url}"]
    assert len(tasks(sqlite_engine)) == 400


# --- credentials only to their origin -----------------------------------------------------------------

def test_a_link_or_a_redirect_to_another_origin_never_carries_the_token():
    with ScriptedServer(lambda p, q, s: json_reply(b"[]")) as elsewhere:
        def route(path, query, server):
            if path == "/moved":
                return Reply(302, {"Location": f"{elsewhere.url}/landed"}, [], length=0)
            link = f'<{elsewhere.url}{path}?page=2>; rel="next"'
            return json_reply(json.dumps([github_issue(1)]).encode(), {"Link": link})

        with ScriptedServer(route) as home:
            client = github_client("ghp-secret", home.url, sleep=lambda s: None)
            with pytest.raises(SourceBoundError, match="Link header points at another origin"):
                list(GitHubIssues(client, "o/r").pages(None))
            assert home.requests[0][2] == "Bearer ghp-secret" and elsewhere.requests == []
            client.get_json(f"{elsewhere.url}/direct")  # even asked directly, the client keeps its token home
            client.get_json("/moved")  # a redirect: followed, without the token
            assert [(p, auth) for p, _, auth in elsewhere.requests] == [("/direct", None), ("/landed", None)]
            basic, _ = jira_client(home.url, email="bot@example.com", api_token="api-secret")
            basic.get_json("/moved")
            assert home.requests[-1][2].startswith("Basic ") and elsewhere.requests[-1][2] is None


def test_https_is_required_off_loopback_unless_allowed():
    with pytest.raises(ValueError, match="RAG_SYNC_ALLOW_HTTP"):
        SourceClient("http://jira.example.com")
    assert SourceClient("http://jira.example.com", allow_http=True).base_url == "http://jira.example.com"
    for loopback in ("http://127.0.0.1:8080", "http://localhost:8080", "http://[::1]:8080"):
        SourceClient(loopback).close()
    with pytest.raises(ValidationError, match="RAG_JIRA_URL is http://"):
        Settings(_env_file=None, jira_url="http://jira.example.com", jira_pat="p")
    with pytest.raises(ValidationError, match="RAG_GITHUB_API_URL is http://"):
        Settings(_env_file=None, github_api_url="http://ghe.example.com/api/v3")
    assert Settings(_env_file=None, jira_url="http://jira.example.com", jira_pat="p", sync_allow_http=True).jira_url


# --- serve: each source on its own schedule ------------------------------------------------------------

def test_in_serve_a_stuck_source_never_stops_another(sqlite_settings, sqlite_engine):
    from app.sources.job import SyncJob
    from tests.sources import jira_data
    from tests.sources.fake_github import FakeGitHub
    from tests.support import wait_until
    from tests.sources.fake_jira import FakeJira

    with FakeJira("2") as jira, FakeGitHub() as github:
        for issue in jira_data.tracker():
            jira.put(issue)
        jira.hold_after_pages = 0  # the search never answers (until the server stops)
        github.issue(1, "Found a bug", 1)
        settings = sqlite_settings.model_copy(update={
            "jira_url": jira.url, "jira_pat": SecretStr(jira.pat), "jira_projects": "PAY",
            "github_api_url": github.url, "github_token": SecretStr(github.token), "github_repos": github.repo,
            "sync_interval_s": 0.1, "sync_max_retries": 0, "sync_response_timeout_s": 600})
        job = SyncJob(sqlite_engine, settings)
        job.start()
        try:
            assert wait_until(lambda: job.passes_of[f"github:{github.repo}"] >= 3)
            assert job.passes_of[f"jira:{jira.url}"] == 0  # still inside its first pass, held by the server
        finally:
            job.stop(wait=False)
    assert tasks(sqlite_engine) == [f"{github.repo}#1"]
    assert job.last[f"github:{github.repo}"].failed == 0
