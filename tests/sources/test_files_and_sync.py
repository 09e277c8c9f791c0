"""Issue 33, findings 6 and 7, replayed with real files and a loopback Jira into the real SQLite engine: a file
import is the same source as a later sync of its site (0 new rows), closedSprints give the latest sprint and every
sprint, labels stay whole; a file import keeps the REST records API's bounds and `--prune` deletes what the export
no longer holds, for that source only."""

from __future__ import annotations

import json

from click.testing import CliRunner
from pydantic import SecretStr

from app.cli import CliEnv, cli
from app.entities import COMMENTS, EMPLOYEES, PROJECTS, SPRINTS, TASKS
from app.sources import checks
from tests.sources import jira_data
from tests.sources.fake_jira import FakeJira
from tests.sources.test_sync import rows, seed, task_by_key
from tests.support import peek_queue


def closed(sid: int, minutes_end: int) -> dict:
    """A closed sprint as Jira's closedSprints lists it (no board id: the field is named, not guessed)."""
    end = jira_data.stamp(minutes_end)
    return {"id": sid, "name": f"PAY Sprint {sid}", "state": "closed", "startDate": jira_data.stamp(minutes_end - 60),
            "endDate": end, "completeDate": end}


def write_export(folder, issues, projects=()) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "projects.json").write_text(json.dumps(list(projects)))
    for issue in issues:
        plain = {k: v for k, v in issue.items() if k != "self"}  # an export without self links
        (folder / f"{issue['key'][:60]}.json").write_text(json.dumps(plain))
    (folder / "summary.json").write_text(json.dumps({"exported": 4, "by": "a script"}))  # not Jira data


def counts_of(engine) -> dict:
    return {e.name: len(rows(engine, e)) for e in (TASKS, EMPLOYEES, COMMENTS, SPRINTS, PROJECTS)}


def test_a_file_import_then_a_sync_of_the_same_site_writes_no_new_row(tmp_path, sqlite_settings, sqlite_engine):
    with FakeJira("2") as fake:
        seed(fake, "2")
        pay3 = fake.issues["PAY-3"]["fields"]
        pay3["closedSprints"] = [closed(9, 300), closed(8, 200), closed(7, 100)]  # newest first, as Jira lists them
        pay3["labels"] = ["needs review", "a,b"]  # kept whole
        write_export(tmp_path / "export", fake.issues.values(), fake.projects.values())
        # RAG_JIRA_URL without credentials names the site (finding 6: this refused to start before)
        files = sqlite_settings.model_copy(update={"jira_url": fake.url})
        run = lambda s, *a: CliRunner().invoke(cli, list(a), obj=CliEnv(s, sqlite_engine))  # noqa: E731
        result = run(files, "import", "jira", str(tmp_path / "export"), "--no-index")
        assert result.exit_code == 0, result.output
        assert f"jira:{fake.url}: 4 created" in result.output and "summary.json" in result.output
        imported = counts_of(sqlite_engine)
        task = task_by_key(sqlite_engine, "PAY-3")
        sprints = {s["sprint_id"]: s["name"] for s in rows(sqlite_engine, SPRINTS)}
        assert sprints[task["sprint_id"]] == "PAY Sprint 9"  # the latest, not the last listed
        assert {"PAY Sprint 7", "PAY Sprint 8", "PAY Sprint 9"} <= set(sprints.values())  # every sprint created
        assert task["labels"] == ["a,b", "needs review"]

        synced = files.model_copy(update={"jira_pat": SecretStr(fake.pat), "jira_projects": "PAY"})
        result = run(synced, "sync", "jira", "--once", "--no-index")
        assert result.exit_code == 0, result.output
        assert f"jira:{fake.url}: 0 created, 0 updated, 4 unchanged, 0 deleted, 0 failed" in result.output
        assert counts_of(sqlite_engine) == imported  # 0 new rows: the same source, the same rows


def test_a_file_import_needs_its_site(tmp_path, sqlite_settings, sqlite_engine):
    write_export(tmp_path / "export", jira_data.tracker())
    run = lambda *a: CliRunner().invoke(cli, list(a), obj=CliEnv(sqlite_settings, sqlite_engine))  # noqa: E731
    result = run("import", "jira", str(tmp_path / "export"))
    assert result.exit_code == 1 and "--source" in result.output and rows(sqlite_engine, TASKS) == []
    result = run("import", "jira", str(tmp_path / "export"), "--source", "acme")
    assert result.exit_code == 1 and "site's URL" in result.output


def test_a_file_import_keeps_the_api_bounds_and_prune_deletes_what_the_export_lost(tmp_path, sqlite_settings,
                                                                                  sqlite_engine):
    from app.api import types
    from app.api.schemas import TaskCreate

    assert (checks.MAX_TEXT_CHARS, checks.MAX_COMMENT_CHARS) == (types.MAX_TEXT_CHARS, types.MAX_COMMENT_CHARS)
    assert TaskCreate.model_fields["title"].metadata[0].max_length == checks.MAX_TITLE_CHARS
    issues = jira_data.tracker()
    big = issues[0]["fields"]
    big["description"] = "x" * 1_199_999
    big["issuelinks"] = [jira_data.blocks(f"PAY-{n}") for n in range(100, 5102)]
    big["comment"]["comments"][0]["body"] = "y" * 50_000
    write_export(tmp_path / "export", issues)
    run = lambda *a: CliRunner().invoke(cli, list(a), obj=CliEnv(sqlite_settings, sqlite_engine))  # noqa: E731
    site = "https://acme.atlassian.net"
    assert run("import", "jira", str(tmp_path / "export"), "--source", site, "--no-index").exit_code == 0
    pay1 = task_by_key(sqlite_engine, "PAY-1")
    assert len(pay1["description"]) == checks.MAX_TEXT_CHARS and pay1["description"].endswith(checks.CUT)
    links = sqlite_engine.load_records("task", [pay1["task_id"]])[pay1["task_id"]].links
    assert len(links) == checks.MAX_LINKS
    assert max(len(c["body"]) for c in rows(sqlite_engine, COMMENTS)) == checks.MAX_COMMENT_CHARS

    # Another source's task with a key the export loses is not this import's to delete.
    other = sqlite_engine.create(TASKS, {"TITLE": "other", "SOURCE": "jira:https://other.example", "EXTERNAL_KEY": "PAY-4"})
    (tmp_path / "export" / "PAY-4.json").unlink()
    kept = run("import", "jira", str(tmp_path / "export"), "--source", site, "--no-index")
    assert kept.exit_code == 0 and task_by_key(sqlite_engine, "PAY-4") is not None  # no --prune: nothing deleted
    pruned = run("import", "jira", str(tmp_path / "export"), "--source", site, "--prune", "--no-index")
    assert pruned.exit_code == 0, pruned.output
    assert f"jira:{site}: 0 created, 0 updated, 3 unchanged, 1 deleted, 0 failed" in pruned.output
    left = {(t["source"], t["external_key"]) for t in rows(sqlite_engine, TASKS)}
    assert (f"jira:{site}", "PAY-4") not in left and ("jira:https://other.example", "PAY-4") in left
    assert sqlite_engine.get(TASKS, other["task_id"]) is not None
    assert any(r.action == "DELETE" for r in peek_queue(sqlite_engine))


def test_a_file_import_writes_every_issue_but_the_malformed_ones_and_names_those(tmp_path, sqlite_settings,
                                                                                sqlite_engine):
    """Finding 4 in files: these shapes aborted the whole import with 0 issues written."""
    from tests.sources.test_identity_and_bad_issues import MALFORMED

    issues = [jira_data.issue("PAY-1", "fine", minutes=1)]
    for n, (name, spoil) in enumerate(MALFORMED.items(), start=2):
        issue = jira_data.issue(f"PAY-{n}", name, minutes=n, comments=[jira_data.comment(n, "mia", "hi", n)])
        spoil(issue["fields"])
        issues.append(issue)
    dateless = jira_data.issue("PAY-30", "no date")
    dateless["fields"].pop("updated"), dateless["fields"].pop("created")
    long_key = jira_data.issue("PAY-31", "long key")
    long_key["key"] = "PAY-" + "9" * 300
    write_export(tmp_path / "export", [*issues, dateless, long_key])
    result = CliRunner().invoke(cli, ["import", "jira", str(tmp_path / "export"), "--source", "https://acme.atlassian.net",
                                      "--no-index"], obj=CliEnv(sqlite_settings, sqlite_engine))
    assert result.exit_code == 1  # said: some failed; the rest is written
    assert f"{len(MALFORMED)} created" in result.output and "3 failed" in result.output
    assert "failed: PAY-30: " in result.output and "failed: PAY-8: " in result.output  # named
    assert "the rest is written" in result.output
    assert len(rows(sqlite_engine, TASKS)) == len(MALFORMED)
