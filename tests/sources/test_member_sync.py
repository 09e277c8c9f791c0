"""Project membership synced from loopback Jira (Cloud v3, Server v2) and GitHub servers into the real SQLite
engine (issue 32): role actors with a user and a group, a group paged over several pages, a removal between two
passes, a 403 on the roles that leaves the members as they were, GitHub collaborators paged and team members, the
"everyone" setting; then, under RAG_ACCESS_RULE=project with the worker stopped, a developer sees a teammate's issue
after the sync and stops seeing it after the pass that removed them."""

from __future__ import annotations

import datetime as dt

import pytest
from pydantic import SecretStr

from app.domain import Scope
from app.entities import EMPLOYEES, PROJECTS
from app.sources import github_members, jira_members, member_sync
from app.sources.github import GitHubIssues, github_client
from app.sources.jira_rest import JiraREST, jira_client
from app.sources.pipeline import run_pass
from app.services import entities
from tests.sources import jira_data
from tests.sources.fake_github import HUBOT, OCTOCAT, account
from tests.sources.fake_members import FakeGitHubMembers, FakeJiraMembers
from tests.support import drain_all

OVERLAP = dt.timedelta(minutes=2)
GHOST = {"accountId": "5b10a0effa615349cb016cd8", "key": "JIRAUSER10199", "name": "ghost", "displayName": "Ghost"}


def reader(fake: FakeJiraMembers) -> JiraREST:
    if fake.api == "2":
        client, api = jira_client(fake.url, pat=fake.pat, sleep=lambda s: None)
    else:
        client, api = jira_client(fake.url, email=fake.email, api_token=fake.api_token, sleep=lambda s: None)
    return JiraREST(client, api, ["PAY"], story_points_field="customfield_10016")


def ghost(api: str) -> dict:
    return {"accountId": GHOST["accountId"]} if api == "3" else {k: GHOST[k] for k in ("key", "name", "displayName")}


def people(engine) -> dict[str, int]:
    return {e["first_name"]: e["employee_id"] for e in engine.list_records(EMPLOYEES, [], None, 100).items}


def members(engine, source: str, key: str) -> dict[str, str]:
    """First name -> membership source, of the project imported under ``key``."""
    project_id = engine.find_by_external(PROJECTS, source, [key])[key]
    names = {v: k for k, v in people(engine).items()}
    return {names[m.employee_id]: m.source for m in engine.project_members(project_id, limit=100).items}


def jira_pass(engine, source: JiraREST, page_size: int = 1):
    run_pass(engine, source, overlap=OVERLAP, reconcile=False)
    return jira_members.sync_members(engine, source.source, source.client, source.api, source.projects,
                                     page_size=page_size)


@pytest.mark.parametrize("api", ["2", "3"])
def test_role_actors_and_a_paged_group_become_members_and_a_removal_counts_at_the_next_pass(api, sqlite_engine):
    with FakeJiraMembers(api) as fake:
        for issue in jira_data.tracker(api):
            fake.put(issue)
        fake.group("pay-devs", ["emma", "chen", ghost(api)])
        fake.role("PAY", 10000, "Developers", users=["mia"], groups=["pay-devs"])
        fake.role("PAY", 10002, "Administrators")
        source = reader(fake)
        source_members = jira_members.JiraMembers(source.client, source.api, page_size=1)
        # The reader on its own: one user actor and three group members over three pages (the ghost included).
        ids = source_members.project_people("PAY")
        assert len(ids) == 4 and ids[0][0] == (jira_data.PEOPLE["mia"]["accountId"] if api == "3" else "JIRAUSER10100")
        pages = [q for p, q in fake.requests if p.endswith("/group/member")]
        assert [q["startAt"] for q in pages] == [["0"], ["1"], ["2"]]
        assert all(("groupId" in q) == (api == "3") for q in pages)  # Cloud by id, Server by name

        first = jira_pass(sqlite_engine, source)
        assert (first.projects, first.added, first.removed, first.skipped, first.warnings) == (1, 3, 0, 1, [])
        assert members(sqlite_engine, source.source, "PAY") == {"Mia": "jira", "Emma": "jira", "Chen": "jira"}
        assert jira_pass(sqlite_engine, source).added == 0  # a second pass changes nothing

        fake.group("pay-devs", ["chen", ghost(api)])  # Emma leaves the group in Jira
        second = jira_pass(sqlite_engine, source)
        assert (second.added, second.removed) == (0, 1)
        assert members(sqlite_engine, source.source, "PAY") == {"Mia": "jira", "Chen": "jira"}
        source.client.close()


def test_a_403_on_the_roles_leaves_the_members_as_they_were(sqlite_engine):
    with FakeJiraMembers("3") as fake:
        for issue in jira_data.tracker("3"):
            fake.put(issue)
        fake.role("PAY", 10000, "Developers", users=["mia", "chen"])
        source = reader(fake)
        jira_pass(sqlite_engine, source)
        pay = sqlite_engine.find_by_external(PROJECTS, source.source, ["PAY"])["PAY"]
        sqlite_engine.put_project_member(pay, people(sqlite_engine)["Emma"], "manual")
        fake.role("PAY", 10000, "Developers", users=[])  # the roles now name nobody, but may not be read
        fake.fail(r"/project/PAY/role$", 403)
        denied = jira_pass(sqlite_engine, source)
        assert (denied.projects, denied.removed) == (0, 0)
        assert len(denied.warnings) == 1 and "PAY: members not read, left as they were" in denied.warnings[0]
        assert "403 Forbidden" in denied.warnings[0]
        assert members(sqlite_engine, source.source, "PAY") == {"Mia": "jira", "Chen": "jira", "Emma": "manual"}
        fake.fail(r"/group/member$", 403)  # a group that may not be listed: the same
        fake.group("devs", ["emma"])
        fake.role("PAY", 10000, "Developers", groups=["devs"])
        assert jira_pass(sqlite_engine, source).warnings
        assert members(sqlite_engine, source.source, "PAY") == {"Mia": "jira", "Chen": "jira", "Emma": "manual"}
        cleared = jira_pass(sqlite_engine, source)  # readable again: the roles' answer counts, manual rows stay
        assert (cleared.added, cleared.removed) == (0, 2)
        assert members(sqlite_engine, source.source, "PAY") == {"Emma": "manual"}
        source.client.close()


def github_reader(fake) -> GitHubIssues:
    return GitHubIssues(github_client(fake.token, fake.url, sleep=lambda s: None), fake.repo)


def test_github_collaborators_paged_and_team_members_and_a_removal(sqlite_engine):
    mona, stranger = account("mona", 3), account("stranger", 99)
    with FakeGitHubMembers() as fake:
        fake.issue(1, "Found a bug", 1, assignee=HUBOT)
        fake.issue(2, "Docs", 2, user=account("mona", 3))
        fake.comment(7, 1, OCTOCAT, "Me too", 3)
        fake.collaborators = [OCTOCAT, stranger, HUBOT]
        fake.teams = {"docs-team": [mona]}
        source = github_reader(fake)
        run_pass(sqlite_engine, source, overlap=OVERLAP, reconcile=False)
        sync = lambda: github_members.sync_members(sqlite_engine, source.source, source.client,  # noqa: E731
                                                   source.repo, "collaborators", page_size=2)
        first = sync()
        assert (first.added, first.skipped) == (3, 1)  # the stranger never took part in an imported issue
        assert members(sqlite_engine, source.source, fake.repo) == {"octocat": "github", "hubot": "github",
                                                                    "mona": "github"}
        listed = [(p, q.get("page")) for p, q in fake.requests if p.endswith("/collaborators")]
        assert listed[-2:] == [(f"/repos/{fake.repo}/collaborators", None), (f"/repos/{fake.repo}/collaborators", "2")]
        assert any(p == "/orgs/octo-org/teams/docs-team/members" for p, _ in fake.requests)
        fake.collaborators = [OCTOCAT]
        fake.teams = {}
        second = sync()
        assert (second.added, second.removed) == (0, 2)
        assert members(sqlite_engine, source.source, fake.repo) == {"octocat": "github"}
        fake.fail(r"/collaborators$", 403)
        assert sync().warnings and members(sqlite_engine, source.source, fake.repo) == {"octocat": "github"}
        everyone = github_members.sync_members(sqlite_engine, source.source, source.client, source.repo, "everyone")
        assert (everyone.added, everyone.removed) == (2, 0)
        assert set(members(sqlite_engine, source.source, fake.repo)) == {"octocat", "hubot", "mona"}
        source.client.close()


def test_under_the_project_rule_a_synced_membership_grants_a_teammates_issue_until_a_pass_removes_it(
        sqlite_engine, sqlite_settings):
    """Through the sync's own members step (member_sync, as `ragctl sync` and the job call it), worker stopped."""
    sqlite_engine.access_rule = "project"
    with FakeJiraMembers("3") as fake:
        for issue in jira_data.tracker("3"):
            fake.put(issue)
        fake.group("pay-devs", ["emma"])
        fake.role("PAY", 10000, "Developers", users=["chen"], groups=["pay-devs"])
        source = reader(fake)
        settings = sqlite_settings.model_copy(update={"jira_url": fake.url, "jira_email": fake.email,
                                                      "jira_api_token": SecretStr(fake.api_token)})
        run_pass(sqlite_engine, source, overlap=OVERLAP, reconcile=False)
        drain_all(sqlite_engine)
        emma = sqlite_engine.caller(people(sqlite_engine)["Emma"])
        assert entities.refs_by_key(sqlite_engine, emma, ["PAY-1"]) == []  # Chen's issue: not hers, no member yet

        assert member_sync.sync_source_members(sqlite_engine, source, settings).added == 2
        emma = sqlite_engine.caller(people(sqlite_engine)["Emma"])
        [ref] = entities.refs_by_key(sqlite_engine, emma, ["PAY-1"])
        assert "Refund fails for EUR" in entities.text_of(entities.lookup(sqlite_engine, emma, ref))
        found = sqlite_engine.search(sqlite_engine.embed_query("refund EUR"), "refund EUR", emma, 5,
                                     Scope(), "hybrid").hits
        assert ref[1] in {h.source_id for h in found if h.source_type == "task"}

        fake.group("pay-devs", [])  # Emma leaves the group; the next pass, the worker still stopped
        assert member_sync.sync_source_members(sqlite_engine, source, settings).removed == 1
        emma = sqlite_engine.caller(people(sqlite_engine)["Emma"])
        assert entities.refs_by_key(sqlite_engine, emma, ["PAY-1"]) == []
        assert entities.lookup(sqlite_engine, emma, ref) is None
        found = sqlite_engine.search(sqlite_engine.embed_query("refund EUR"), "refund EUR", emma, 5,
                                     Scope(), "hybrid").hits
        assert ref[1] not in {h.source_id for h in found if h.source_type == "task"}
        assert entities.refs_by_key(sqlite_engine, emma, ["PAY-2"])  # her own issue stays
        source.client.close()
