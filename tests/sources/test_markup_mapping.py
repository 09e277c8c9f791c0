"""The pure parts of the sources: markup to text, the mapping tables, Jira JSON to neutral records."""

from __future__ import annotations

import datetime as dt

import pytest

from app.sources import jira, mapping
from app.sources.markup import adf_to_text, wiki_to_text
from tests.sources import jira_data


@pytest.mark.parametrize("markup, text", [
    ("h1. Refund fails", "Refund fails"),
    ("The *payment* service, _really_", "The payment service, really"),
    ("call {{refund()}} now", "call refund() now"),
    ("see [the log|https://ex.com/log]", "see the log (https://ex.com/log)"),
    ("see [https://ex.com/a]", "see https://ex.com/a"),
    ("* one\n** two\n# three", "- one\n- two\n1. three"),
    ("{code:java}\nint x = a*b*c; // *not bold*\n{code}", "int x = a*b*c; // *not bold*"),
    ("{noformat}raw [x|y] {{z}}{noformat}", "raw [x|y] {{z}}"),
    ("{quote}quoted text{quote}", "quoted text"),
    ("!screenshot.png|thumbnail! attached", "screenshot.png attached"),
    ("thanks [~jsmith]", "thanks @jsmith"),
    ("thanks [~accountid:5b10a2844c20165700ede21g]", "thanks @5b10a2844c20165700ede21g"),
    ("well-known a-b-c and -struck-", "well-known a-b-c and struck"),
    ("||Key||Status||\n|PAY-1|Done|", "Key | Status\nPAY-1 | Done"),
    ("bq. a quote", "a quote"),
    (None, ""),
])
def test_wiki_markup_becomes_plain_text(markup, text):
    assert wiki_to_text(markup) == text


def test_adf_becomes_plain_text():
    doc = {"type": "doc", "version": 1, "content": [
        {"type": "heading", "attrs": {"level": 2}, "content": [{"type": "text", "text": "Steps"}]},
        {"type": "paragraph", "content": [
            {"type": "text", "text": "Ask "}, {"type": "mention", "attrs": {"id": "5b10", "text": "@Chen Wei"}},
            {"type": "text", "text": " about "},
            {"type": "text", "text": "the log", "marks": [{"type": "link", "attrs": {"href": "https://ex.com/log"}}]},
            {"type": "hardBreak"}, {"type": "text", "text": "bold", "marks": [{"type": "strong"}]}]},
        {"type": "bulletList", "content": [
            {"type": "listItem", "content": [{"type": "paragraph", "content": [{"type": "text", "text": "first"}]}]},
            {"type": "listItem", "content": [{"type": "paragraph", "content": [{"type": "text", "text": "second"}]}]}]},
        {"type": "codeBlock", "attrs": {"language": "python"}, "content": [{"type": "text", "text": "print(1)"}]},
        {"type": "mediaSingle", "content": [{"type": "media", "attrs": {"alt": "trace.png", "type": "file"}}]},
        {"type": "table", "content": [{"type": "tableRow", "content": [
            {"type": "tableCell", "content": [{"type": "paragraph", "content": [{"type": "text", "text": "a"}]}]},
            {"type": "tableCell", "content": [{"type": "paragraph", "content": [{"type": "text", "text": "b"}]}]}]}]},
    ]}
    assert adf_to_text(doc) == ("Steps\n\nAsk @Chen Wei about the log (https://ex.com/log)\nbold\n\n- first\n- second\n"
                                "print(1)\n\ntrace.png\na | b")
    assert adf_to_text("an old plain comment ") == "an old plain comment"
    assert adf_to_text(None) == ""


@pytest.mark.parametrize("category, name, ours, kept", [
    ("new", "To Do", "TODO", "To Do"),
    ("new", "Todo", "TODO", "Todo"),
    ("indeterminate", "In Progress", "IN_PROGRESS", "In Progress"),
    ("indeterminate", "In QE Test", "IN_REVIEW", "In QE Test"),
    ("indeterminate", "Code Review", "IN_REVIEW", "Code Review"),
    ("indeterminate", "QA", "IN_REVIEW", "QA"),
    ("indeterminate", "Reopened", "IN_PROGRESS", "Reopened"),
    ("done", "Done", "DONE", "Done"),
    ("done", "Won't Fix", "DONE", "Won't Fix"),
    (None, None, "TODO", None),
])
def test_status_by_category(category, name, ours, kept):
    assert mapping.jira_status(category, name) == (ours, kept)


@pytest.mark.parametrize("name, ours", [
    ("Blocker", "CRITICAL"), ("Highest", "CRITICAL"), ("Critical", "CRITICAL"), ("High", "HIGH"), ("Major", "HIGH"),
    ("Medium", "MEDIUM"), (None, "MEDIUM"), ("None", "MEDIUM"), ("P-custom", "MEDIUM"), ("Low", "LOW"),
    ("Lowest", "LOW"), ("Minor", "LOW"), ("Trivial", "LOW"),
])
def test_priority(name, ours):
    assert mapping.jira_priority(name) == ours


@pytest.mark.parametrize("display, first, last", [
    ("Chen Wei", "Chen", "Wei"), ("Ana María López", "Ana María", "López"), ("octocat", "octocat", ""),
    (None, "JIRAUSER1", ""), ("  ", "JIRAUSER1", ""),
])
def test_names_split(display, first, last):
    assert mapping.split_name(display, "JIRAUSER1") == (first, last)


def test_both_sprint_forms_and_the_current_one():
    obj = mapping.sprint_of(jira_data.sprint_object(12, "PAY Sprint 7"))
    old = mapping.sprint_of(jira_data.sprint_string(12, "PAY Sprint 7"))
    assert obj.external_id == old.external_id == "12" and obj.name == old.name == "PAY Sprint 7"
    assert obj.status == old.status == "ACTIVE" and obj.start_date == old.start_date == dt.date(2026, 11, 2)
    assert old.goal is None and obj.goal == "Ship refunds"
    closed = jira_data.sprint_object(11, "PAY Sprint 6", "closed")
    assert mapping.current_sprint([closed, jira_data.sprint_object(12, "PAY Sprint 7")]).external_id == "12"
    assert mapping.current_sprint([closed]).external_id == "11"
    assert mapping.current_sprint(["garbage", None]) is None


def test_a_v2_issue_maps_every_field():
    raw = jira_data.issue(
        "PAY-56", "Refund *fails* for {{EUR}}", description="h2. Steps\n* pay\n* refund", status=("In QE Test", "indeterminate"),
        priority="Blocker", assignee="chen", reporter="mia", issue_type="Bug", labels=["backend"], points=5, due="2026-11-30",
        comments=[jira_data.comment(1, "emma", "Seen on [prod|https://ex.com]", 30)],
        links=[jira_data.blocked_by("PAY-12"), jira_data.blocks("MOB-3")],
        sprint=jira_data.sprint_string(12, "PAY Sprint 7"), minutes=45)
    issue = jira.issue_of(raw, story_points_field="customfield_10016")
    assert (issue.key, issue.title, issue.issue_type) == ("PAY-56", "Refund *fails* for {{EUR}}", "Bug")
    assert issue.description == "Steps\n- pay\n- refund"
    assert (issue.status, issue.status_name, issue.priority) == ("IN_REVIEW", "In QE Test", "CRITICAL")
    assert issue.assignee.external_id == "JIRAUSER10102" and issue.assignee.display_name == "Chen Wei"
    assert issue.comments[0].body == "Seen on prod (https://ex.com)" and issue.comments[0].author.email == "emma@example.com"
    assert issue.comments[0].created_at == dt.datetime(2026, 11, 2, 9, 30)
    assert [(link.link_type, link.target_key) for link in issue.links] == [("BLOCKED_BY", "PAY-12"), ("BLOCKS", "MOB-3")]
    assert issue.sprint.name == "PAY Sprint 7" and issue.story_points == 5.0 and issue.due == dt.date(2026, 11, 30)
    assert issue.updated == dt.datetime(2026, 11, 2, 9, 45) and issue.project.key == "PAY"


def test_a_v3_issue_reads_adf_and_account_ids():
    raw = jira_data.issue("PAY-7", "Cloud one", api="3", description="line one\nline two", assignee="mia",
                          comments=[jira_data.comment(9, "chen", "LGTM", 5, api="3")])
    issue = jira.issue_of(raw)
    assert issue.description == "line one\n\nline two"
    assert issue.assignee.external_id == "5b10a2844c20165700ede21g" and issue.comments[0].body == "LGTM"


def test_export_files_read_recursively(tmp_path):
    import json

    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "one.json").write_text(json.dumps(jira_data.issue("PAY-1", "one")))
    (tmp_path / "a" / "b" / "page.json").write_text(json.dumps({"issues": [jira_data.issue("PAY-2", "two")]}))
    (tmp_path / "project.json").write_text(json.dumps(jira_data.project("PAY", "Payments")))
    export = jira.read_export(tmp_path)
    assert sorted(i["key"] for i in export.issues) == ["PAY-1", "PAY-2"] and export.projects["PAY"]["name"] == "Payments"
    # Finding 7 of issue 33: what is not Jira data, or not a regular file inside the folder, is skipped and named.
    import os

    (tmp_path / "summary.json").write_text("{\"hello\": 1}")
    (tmp_path / "broken.json").write_text("{not json")
    os.mkfifo(tmp_path / "x.json")  # opened, a FIFO would wait for a writer forever
    outside = tmp_path.parent / f"{tmp_path.name}-outside.json"
    outside.write_text(json.dumps(jira_data.issue("PAY-9", "not in the export")))
    (tmp_path / "escape.json").symlink_to(outside)
    (tmp_path / "inside.json").symlink_to(tmp_path / "a" / "one.json")  # a link inside the folder is read
    (tmp_path / "null.json").symlink_to("/dev/null")
    export = jira.read_export(tmp_path)
    assert sorted(i["key"] for i in export.issues) == ["PAY-1", "PAY-2"]
    why = {line.split(": ", 1)[0].rsplit("/", 1)[-1]: line for line in export.skipped}
    assert set(why) == {"summary.json", "broken.json", "x.json", "escape.json", "null.json"}
    assert "neither a Jira issue" in why["summary.json"] and "not readable JSON" in why["broken.json"]
    assert "not a regular file" in why["x.json"] and "out of the folder" in why["escape.json"]
    assert "out of the folder" in why["null.json"]
    with pytest.raises(jira.JiraFormatError, match="not a regular file"):
        jira.read_export(tmp_path / "x.json")
    with pytest.raises(jira.JiraFormatError, match="no such"):
        jira.read_export(tmp_path / "missing")


def import_table_cell(jira_field: str) -> str:
    """The 'how' cell of the row of docs/IMPORT.md's Jira mapping table whose first cell names ``jira_field``."""
    from pathlib import Path

    page = Path(__file__).resolve().parents[2] / "docs" / "IMPORT.md"
    for line in page.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[0] == jira_field:
            return cells[2]
    raise AssertionError(f"docs/IMPORT.md has no mapping row for {jira_field}")


def documented_arrows(cell: str) -> dict[str, str]:
    """"Blocker, Highest → CRITICAL; High → HIGH" → {"blocker": "CRITICAL", "highest": "CRITICAL", "high": "HIGH"}."""
    import re

    out = {}
    for segment in re.split(r"[;]|, (?=`)", cell):
        if "→" not in segment:
            continue
        names, target = segment.split("→", 1)
        target = target.split()[0]
        for name in re.split(r",| or ", names):
            out[name.strip(" `").lower()] = target
    return out


def test_the_documented_priority_and_status_tables_are_the_code_s():
    priorities = documented_arrows(import_table_cell("`priority.name`"))
    assert {k: v for k, v in priorities.items() if k not in ("absent", "any other")} == \
        mapping.PRIORITY_BY_NAME
    statuses = documented_arrows(import_table_cell("`status.statusCategory`"))
    assert statuses == {k: v for k, v in mapping.STATUS_BY_CATEGORY.items() if k != "undefined"}
    review_words = import_table_cell("`status.statusCategory`").split("where the name says ")[1].split(")")[0]
    for word in review_words.replace(" or ", ", ").split(", "):
        assert mapping.REVIEW_WORDS.search(f"In {word}"), word


def test_the_github_label_map_setting():
    from app.config import Settings
    from app.sources.configured import github_labels
    from app.sources.github import issue_of

    settings = Settings(_env_file=None, github_label_map='{"priority": {"Sev1": "CRITICAL"}, "type": {"Defect": "Bug"}}')
    labels = github_labels(settings)
    assert labels == {"priority": {"sev1": "CRITICAL"}, "type": {"defect": "Bug"}}
    raw = {"number": 5, "title": "Crash", "state": "open", "labels": [{"name": "SEV1"}, {"name": "defect"}],
           "updated_at": "2026-11-02T09:00:00Z"}
    issue = issue_of(raw, "octo/repo", [], labels)
    assert (issue.key, issue.priority, issue.issue_type) == ("octo/repo#5", "CRITICAL", "Bug")
    with pytest.raises(ValueError, match="not JSON"):
        github_labels(Settings(_env_file=None, github_label_map="{nope"))
    with pytest.raises(ValueError, match="must be"):
        github_labels(Settings(_env_file=None, github_label_map='["p0"]'))


def test_jira_settings_need_credentials():
    from pydantic import ValidationError

    from app.config import Settings

    with pytest.raises(ValidationError, match="RAG_JIRA_PAT"):
        Settings(_env_file=None, jira_url="https://jira.example.com", jira_projects="PAY")
    # the site alone: what a file import belongs to (issue 33, finding 6), nothing to sync
    assert Settings(_env_file=None, jira_url="https://jira.example.com").jira_url
    assert Settings(_env_file=None, jira_url="https://x.atlassian.net", jira_email="a@b.c", jira_api_token="t").jira_url


@pytest.mark.parametrize("name, phrase, outward, ours", [
    ("Blocks", "blocks", True, "BLOCKS"), ("Blocks", "is blocked by", False, "BLOCKED_BY"),
    ("Dependency", "depends on", True, "DEPENDS_ON"), ("Depends", "is depended on by", False, "DEPENDED_ON_BY"),
    ("Duplicate", "duplicates", True, "DUPLICATES"), ("Duplicate", "is duplicated by", False, "DUPLICATED_BY"),
    ("Cloners", "clones", True, "CLONES"), ("Cloners", "is cloned by", False, "CLONED_BY"),
    ("Relates", "relates to", True, "RELATES"), ("Relates", "relates to", False, "RELATES"),
    ("Gantt Dependency", "has to be done after", True, "RELATES"),  # an unknown type with an unknown phrase
    ("Requirement", "is depended on by", False, "DEPENDED_ON_BY"),  # an unknown type read by its phrase
    ("Problem/Incident", "causes", True, "RELATES"), (None, None, True, "RELATES"),
])
def test_a_jira_link_maps_by_its_type_name_and_direction(name, phrase, outward, ours):
    assert mapping.link_type(name, phrase, outward) == ours


def test_the_tracker_fields_of_a_jira_issue_and_a_github_issue():
    from app.sources import github

    raw = jira_data.issue("PAY-7", "Crash", api="3", reporter="emma", created=-30, resolution="Duplicate", resolved=5,
                          versions=["1.9", "2.0"], fix_versions=["2.1"], components=["API"], parent="PAY-1",
                          environment="Android 14\nPixel 8", labels=["a", " "])
    issue = jira.issue_of(raw)
    assert (issue.reporter.display_name, issue.resolution, issue.parent_key) == ("Emma Richards", "Duplicate", "PAY-1")
    assert issue.created == jira_data.BASE.replace(tzinfo=None) - dt.timedelta(minutes=30)
    assert issue.resolved == jira_data.BASE.replace(tzinfo=None) + dt.timedelta(minutes=5)
    assert (issue.affects_versions, issue.fix_versions, issue.components, issue.labels) == (
        ("1.9", "2.0"), ("2.1",), ("API",), ("a",))
    assert issue.environment == "Android 14\n\nPixel 8"  # two ADF paragraphs
    bare = jira.issue_of(jira_data.issue("PAY-8", "Open", reporter=None))
    assert (bare.reporter, bare.resolution, bare.resolved, bare.parent_key, bare.environment) == (None,) * 5
    closed = {"number": 3, "title": "t", "state": "closed", "state_reason": "duplicate", "user": {"id": 1, "login": "o"},
              "created_at": "2026-11-01T10:00:00Z", "updated_at": "2026-11-03T10:00:00Z",
              "closed_at": "2026-11-02T10:00:00Z", "closed_by": {"id": 2, "login": "h"},
              "milestone": {"number": 4, "title": "v2.0 ", "state": "open"}}
    gh = github.issue_of(closed, "o/r", [])
    assert (gh.resolution, gh.resolved_by.external_id, gh.reporter.external_id) == ("Duplicate", "github:2", "github:1")
    assert (gh.created, gh.resolved, gh.fix_versions) == (dt.datetime(2026, 11, 1, 10), dt.datetime(2026, 11, 2, 10),
                                                          ("v2.0",))
    reopened = github.issue_of({**closed, "state": "open", "state_reason": "reopened"}, "o/r", [])
    assert (reopened.resolution, reopened.resolved, reopened.resolved_by) == (None, None, None)
