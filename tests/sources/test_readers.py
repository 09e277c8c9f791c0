"""The REST readers against loopback Jira (v2, v3) and GitHub servers: paging, comment pages, auth, retries.
No database here: what a reader yields is checked against what the fake holds."""

from __future__ import annotations

import datetime as dt
import time

import pytest

from app.sources.github import GitHubIssues, github_client
from app.sources.http import SourceAuthError, SourceClient, SourceError, SourceNotFoundError
from app.sources.jira_rest import JiraREST, jira_client
from tests.sources import jira_data
from tests.sources.fake_github import HUBOT, OCTOCAT, FakeGitHub
from tests.sources.fake_jira import FakeJira


def recorded() -> tuple[list[float], callable]:
    waits: list[float] = []
    return waits, waits.append  # the waits the server asked for, without sleeping through them


def jira_reader(fake: FakeJira, page_size: int = 2, **retry) -> JiraREST:
    waits = retry.pop("sleep", lambda s: None)
    if fake.api == "2":
        client, api = jira_client(fake.url, pat=fake.pat, sleep=waits, **retry)
    else:
        client, api = jira_client(fake.url, email=fake.email, api_token=fake.api_token, sleep=waits, **retry)
    return JiraREST(client, api, ["PAY", "MOB"], story_points_field="customfield_10016", page_size=page_size)


@pytest.mark.parametrize("api", ["2", "3"])
def test_every_page_and_every_comment_page_is_read_in_update_order(api):
    with FakeJira(api, embedded_comments=2) as fake:
        for n in range(1, 6):
            comments = [jira_data.comment(100 * n + c, "emma", f"comment {c} on {n}", n + c, api) for c in range(5)]
            fake.put(jira_data.issue(f"PAY-{n}", f"issue {n}", api=api, minutes=10 * (6 - n), comments=comments))
        fake.put(jira_data.issue("OPS-1", "another project", api=api, minutes=1))
        reader = jira_reader(fake)
        pages = list(reader.pages(None))
        keys = [i.key for page in pages for i in page]
        assert keys == ["PAY-5", "PAY-4", "PAY-3", "PAY-2", "PAY-1"]  # oldest update first, OPS not synced
        assert all(len(page) <= 2 for page in pages)  # each issue once, however the pages overlap
        for issue in (i for page in pages for i in page):
            assert [c.body for c in issue.comments] == [f"comment {c} on {issue.key[4:]}" for c in range(5)]
        comment_calls = [p for p, _ in fake.requests if p.endswith("/comment")]
        assert len(comment_calls) == 5 * 1  # 5 comments fit one page of 100 each
        assert reader.all_keys() == {f"PAY-{n}" for n in range(1, 6)}


def test_v2_since_writes_the_bound_in_the_accounts_time_zone_rounded_down():
    with FakeJira("2", time_zone="Europe/Madrid") as fake:
        fake.put(jira_data.issue("PAY-1", "old", minutes=0))
        fake.put(jira_data.issue("PAY-2", "new", minutes=90))
        reader = jira_reader(fake)
        since = jira_data.BASE.replace(tzinfo=None) + dt.timedelta(minutes=89, seconds=59)
        keys = [i.key for page in reader.pages(since) for i in page]
        assert keys == ["PAY-2"]
        jql = fake.searches()[-1]["jql"][0]
        assert 'updated >= "2026-11-02 11:29"' in jql  # 10:29 UTC is 11:29 in Madrid in November


def test_v2_keyset_paging_does_not_skip_an_issue_edited_during_the_pass():
    with FakeJira("2") as fake:
        for n in range(1, 7):
            fake.put(jira_data.issue(f"PAY-{n}", f"issue {n}", minutes=n))
        reader = jira_reader(fake, page_size=2)
        seen = []
        for page in reader.pages(None):
            seen += [i.key for i in page]
            if seen == ["PAY-1", "PAY-2"]:  # PAY-2 edited while the reader holds page 1: it moves to the end
                fake.put(jira_data.issue("PAY-2", "issue 2 edited", minutes=60))
        assert set(seen) >= {f"PAY-{n}" for n in range(1, 7)}
        assert seen.count("PAY-3") == 1


def test_429_waits_what_retry_after_says_and_500_backs_off():
    waits, sleep = recorded()
    with FakeJira("2") as fake:
        fake.put(jira_data.issue("PAY-1", "one"))
        fake.fail("/search$", 429, {"Retry-After": "7"})
        fake.fail("/search$", 503, times=2)
        reader = jira_reader(fake, sleep=sleep, backoff_s=1.0)
        assert [i.key for page in reader.pages(None) for i in page] == ["PAY-1"]
    assert waits == [7.0, 2.0, 4.0]  # Retry-After, then the backoff of the 2nd and 3rd attempt


def test_a_server_that_keeps_failing_is_given_up_after_the_cap():
    waits, sleep = recorded()
    with FakeJira("2") as fake:
        fake.fail("/search$", 500, times=100)
        reader = jira_reader(fake, sleep=sleep, max_retries=3, max_wait_s=5.0, backoff_s=4.0)
        with pytest.raises(SourceError, match="answered 500 4 times"):
            list(reader.pages(None))
    assert waits == [4.0, 5.0, 5.0]  # doubling, each wait capped


@pytest.mark.parametrize("status, error, words", [(401, SourceAuthError, "401 Unauthorized"),
                                                  (403, SourceAuthError, "403 Forbidden"),
                                                  (404, SourceNotFoundError, "404 Not Found")])
def test_auth_and_not_found_fail_at_once_without_retrying(status, error, words):
    waits, sleep = recorded()
    with FakeJira("2") as fake:
        fake.fail("/myself$", status, times=100)
        reader = jira_reader(fake, sleep=sleep)
        with pytest.raises(error, match=words):
            list(reader.pages(None))
        assert len(fake.requests) == 1 and waits == []


def test_a_wrong_token_is_a_401():
    with FakeJira("3") as fake:
        client, api = jira_client(fake.url, email=fake.email, api_token="wrong")
        with pytest.raises(SourceAuthError, match="401"):
            list(JiraREST(client, api, ["PAY"], story_points_field=None).pages(None))


def test_github_rate_limits_are_honoured():
    waits, sleep = recorded()
    with FakeGitHub() as fake:
        fake.issue(1, "Found a bug", 1)
        soon = str(int(time.time()) + 3)
        fake.fail("/issues$", 403, {"x-ratelimit-remaining": "0", "x-ratelimit-reset": soon})
        fake.fail("/issues$", 403, {"Retry-After": "11"})  # the secondary limit
        reader = GitHubIssues(github_client(fake.token, fake.url, sleep=sleep), fake.repo)
        assert [i.key for page in reader.pages(dt.datetime(2026, 1, 1)) for i in page] == ["octo-org/octo-repo#1"]
        assert 0 < waits[0] <= 5 and waits[1] == 11.0
        later = str(int(time.time()) + 3600)
        fake.fail("/issues$", 403, {"x-ratelimit-remaining": "0", "x-ratelimit-reset": later})
        with pytest.raises(SourceError, match="rate limit is used up until"):
            list(reader.pages(dt.datetime(2026, 1, 1)))


def test_github_pages_skip_pull_requests_read_comments_and_304_costs_nothing():
    with FakeGitHub() as fake:
        fake.issue(1, "Found a bug", 1, labels=["bug", "P1"], assignee=HUBOT,
                   milestone={"number": 3, "title": "v1.0", "state": "open", "due_on": "2026-12-01T07:00:00Z"})
        fake.issue(2, "Fix the bug", 2, pull=True)
        fake.issue(3, "Docs", 3, state="closed", labels=["documentation"])
        fake.comment(77, 1, OCTOCAT, "Me too", 5)
        client = github_client(fake.token, fake.url)
        reader = GitHubIssues(client, fake.repo, page_size=1)
        issues = [i for page in reader.pages(None) for i in page]
        assert [i.key for i in issues] == ["octo-org/octo-repo#3", "octo-org/octo-repo#1"]
        bug = issues[1]
        assert (bug.issue_type, bug.priority, bug.status) == ("Bug", "HIGH", "TODO")
        assert bug.assignee.external_id == "github:2" and bug.sprint.name == "v1.0" and bug.sprint.status == "ACTIVE"
        assert [(c.body, c.author.display_name) for c in bug.comments] == [("Me too", "octocat")]
        assert issues[0].status == "DONE" and issues[0].issue_type == "Task"
        before = client.requests
        assert reader.all_keys() == {"octo-org/octo-repo#1", "octo-org/octo-repo#3"}
        assert reader.all_keys() == {"octo-org/octo-repo#1", "octo-org/octo-repo#3"}
        assert fake.not_modified == 3 and client.not_modified == 3 and client.requests - before == 6  # 3 pages twice
        incremental = [i.key for page in reader.pages(dt.datetime(2026, 11, 2, 9, 4)) for i in page]
        assert incremental == ["octo-org/octo-repo#1"]  # the comment at 9:05 bumped it
        assert any(p.endswith("/issues/1/comments") for p, _ in fake.requests)


def test_a_dropped_connection_is_retried_then_reported():
    import socket

    waits, sleep = recorded()
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    client = SourceClient(f"http://127.0.0.1:{port}", max_retries=2, backoff_s=0.5, sleep=sleep)
    with pytest.raises(SourceError, match="after 3 attempts"):
        client.get_json("/rest/api/2/myself")
    assert waits == [0.5, 1.0]


def test_retry_after_reads_seconds_and_http_dates():
    from email.utils import format_datetime

    from app.sources.http import _retry_after

    assert _retry_after("7") == 7.0 and _retry_after(None) is None and _retry_after("soon") is None
    later = dt.datetime.now(dt.timezone.utc) + dt.timedelta(seconds=30)
    assert 25 <= _retry_after(format_datetime(later, usegmt=True)) <= 31
    assert _retry_after(format_datetime(dt.datetime(2000, 1, 1, tzinfo=dt.timezone.utc), usegmt=True)) == 0.0
