"""The tracker benchmark's yardstick (issue 31): the generated Jira-shaped export (app/evals/jira_shaped.py) has
the shape and the field distribution of a real tracker and is read by the real import; the truths
(app/evals/jira_truth.py) say what each template means on a tiny export built by hand here; the judge of the
new kinds (app/evals/tracker_score.py) tells right from wrong. Pure: no database."""

from __future__ import annotations

import datetime as dt
import json
from collections import Counter

import pytest

from app.evals import jira_shaped, tracker_cases, tracker_phrasings
from app.evals import jira_truth as jt
from app.evals.conversation_truth import Hidden
from app.evals.tracker_score import judge_tracker
from app.sources import jira


@pytest.fixture(scope="module")
def export():
    return jira_shaped.build()


def test_the_export_is_big_and_has_three_projects(export):
    assert len(export.issues) >= 2000
    assert Counter(jt.project_of(i) for i in export.issues).keys() == {"HRB", "LMN", "TLY"}
    assert len({i["key"] for i in export.issues}) == len(export.issues)
    assert jira_shaped.build() == export  # a fixed seed: the same export every time


def test_every_field_is_present(export):
    wanted = {"summary", "description", "issuetype", "status", "priority", "assignee", "reporter", "created",
              "updated", "resolutiondate", "resolution", "fixVersions", "versions", "components", "labels",
              "environment", "duedate", "issuelinks", "comment", jira_shaped.SPRINT_FIELD, "project"}
    for issue in export.issues:
        assert wanted <= issue["fields"].keys(), issue["key"]
        assert issue["fields"]["status"]["statusCategory"]["key"] in ("new", "indeterminate", "done")
        assert issue["fields"]["reporter"]["accountId"] and issue["fields"]["reporter"]["emailAddress"]
    fields = [i["fields"] for i in export.issues]
    assert sum(bool(f["duedate"]) for f in fields) > 100
    assert sum(bool(f["environment"]) for f in fields) > 100
    assert sum(bool(f.get("closedSprints")) for f in fields) > 100
    subtasks = [f for f in fields if f["issuetype"]["name"] == "Sub-task"]
    assert subtasks and all(f["parent"]["key"] for f in subtasks)
    comments = [c for f in fields for c in f["comment"]["comments"]]
    assert len(comments) > 1000 and all(c["author"]["displayName"] and c["created"] for c in comments)


def test_the_distributions_are_a_real_trackers(export):
    fields = [i["fields"] for i in export.issues]
    assert {f["issuetype"]["name"] for f in fields} == {"Bug", "Improvement", "New Feature", "Task", "Sub-task",
                                                         "Epic", "Story"}
    assert {f["status"]["name"] for f in fields} == {"Open", "In Progress", "Patch Available", "Reopened",
                                                      "Resolved", "Closed", "In QE Test"}
    assert {f["priority"]["name"] for f in fields} == {"Blocker", "Critical", "Major", "Minor", "Trivial"}
    resolutions = Counter((f["resolution"] or {}).get("name") for f in fields if f["resolution"])
    assert set(resolutions) == {"Fixed", "Won't Fix", "Duplicate", "Cannot Reproduce", "Incomplete", "Invalid", "Done"}
    not_fixed = sum(n for r, n in resolutions.items() if r not in ("Fixed", "Done"))
    assert not_fixed >= 0.25 * sum(resolutions.values())  # many closed as not fixed
    assert all((f["resolution"] is None) == (f["status"]["statusCategory"]["key"] != "done") for f in fields)
    labels = {x for f in fields for x in f["labels"]}
    assert 25 <= len(labels) <= 35 and any("-" in x for x in labels) and any("." in x for x in labels)
    for project in export.projects:
        assert 5 <= len(project["components"]) <= 12
        released = [v for v in project["versions"] if v["released"]]
        assert len(released) >= 3 and len(project["versions"]) - len(released) >= 2
    created = [dt.date.fromisoformat(f["created"][:10]) for f in fields]
    assert (export.today - min(created)).days > 2 * 365 and max(created) <= export.today


def test_people_have_real_shaped_names_and_skewed_activity(export):
    names = [p["displayName"] for p in export.people]
    assert len(names) == 60 and all(len(n.split()) >= 2 for n in names)
    assert any(len(n.split()) >= 3 for n in names) and any(" van der " in n for n in names)
    assert any("-" in n for n in names) and any(n != n.encode("ascii", "ignore").decode() for n in names)
    firsts = Counter(n.split()[0] for n in names)
    assert sum(c > 1 for c in firsts.values()) >= 3  # first names several people share
    work = Counter(jt.person_id(i["fields"]["assignee"]) for i in export.issues if i["fields"]["assignee"])
    assert sum(n for _, n in work.most_common(5)) >= 0.4 * sum(work.values())


def test_links_of_every_type_on_both_sides(export):
    by_key = {i["key"]: i for i in export.issues}
    kinds = Counter()
    for issue in export.issues:
        for link in issue["fields"]["issuelinks"]:
            kinds[link["type"]["name"]] += 1
            if "outwardIssue" in link:  # the target shows the same link inward
                back = by_key[link["outwardIssue"]["key"]]["fields"]["issuelinks"]
                assert any(b.get("inwardIssue", {}).get("key") == issue["key"] and b["type"]["name"] ==
                           link["type"]["name"] for b in back)
    assert set(kinds) == set(jira_shaped.LINK_TYPES)


def test_sprints_span_three_years_with_one_active_per_board(export):
    for board in {s["boardId"] for s in export.sprints}:
        mine = [s for s in export.sprints if s["boardId"] == board]
        assert [s["state"] for s in mine].count("active") == 1 and len(mine) >= 70
        assert mine[0]["startDate"][:10] <= (export.today - dt.timedelta(days=3 * 365 - 10)).isoformat()


def test_the_real_import_reads_the_files(export, tmp_path):
    small = jira_shaped.build(scale=0.05)
    for name, value in jira_shaped.pages(small).items():
        (tmp_path / name).write_text(json.dumps(value))
    read = jira.read_export(tmp_path)
    assert len(read.issues) == len(small.issues) and set(read.projects) == {"HRB", "LMN", "TLY"}
    mapped = [jira.issue_of(raw, projects=read.projects) for raw in read.issues]
    assert sum(bool(m.reporter) for m in mapped) == len(mapped) and any(m.sprint for m in mapped)


def test_cases_cover_every_template_and_chain(export):
    tr = jt.Tracker(export.today, export.issues, export.people, {i["key"]: n for n, i in enumerate(export.issues)}, {})
    manager, dev1, dev2 = tracker_cases.askers(tr)
    tr = jt.Tracker(tr.today, tr.issues, tr.people, tr.ids, {manager: "MANAGER"})
    cases = tracker_cases.build(tr, {"single": {}, "chains": {}})
    turns = [t for c in cases for t in c.turns]
    assert {t.template for t in turns} == set(tracker_cases.KIND) | set(tracker_cases.CHAIN_KINDS)
    assert sum(c.is_chain for c in cases) >= 40 and {c.asker for c in cases} == {manager, dev1, dev2}
    assert 3 * sum(t.lang == "es" for t in turns) >= len(turns)
    assert all("{" not in t.text for t in turns)
    assert set(tracker_phrasings.SINGLE) == set(tracker_cases.KIND)
    assert set(tracker_phrasings.CHAINS) == set(tracker_cases.CHAIN_KINDS)
    kinds = Counter(tracker_cases.truth_of(tr, c.asker, t).kind for c in cases for t in c.turns)
    assert kinds["refusal"] < 0.2 * len(turns)  # most questions have an answer to find


# --- the truths on a tiny export built by hand ---------------------------------------------------------

TODAY = dt.date(2026, 12, 1)  # a Tuesday: last week is 2026-11-23 .. 2026-11-29
PEOPLE = {"ana1": "Ana María Quintero", "ana2": "Ana Pérez", "ben": "Ben Okafor", "mia": "Mia van der Berg"}
SPRINT = {"P-1": {"id": 1, "name": "P Sprint 1", "state": "closed", "boardId": 1, "startDate": "2026-11-02T09:00:00Z"},
          "P-2": {"id": 2, "name": "P Sprint 2", "state": "active", "boardId": 1, "startDate": "2026-11-16T09:00:00Z"},
          "Q-1": {"id": 3, "name": "Q Sprint 1", "state": "active", "boardId": 2, "startDate": "2026-11-10T09:00:00Z"}}


def user(who):
    return None if who is None else {"accountId": who, "displayName": PEOPLE[who]}


def issue(key, status="Open", category="new", assignee="ben", reporter="mia", created="2026-11-24T10:00:00.000+0000",
          **extra):
    fields = {"summary": f"summary of {key}", "status": {"name": status, "statusCategory": {"key": category}},
              "assignee": user(assignee), "reporter": user(reporter), "created": created,
              "issuetype": {"name": extra.pop("type", "Bug")}, "priority": {"name": extra.pop("priority", "Major")},
              "project": {"key": key[0], "name": {"P": "Payments Core", "Q": "Query Lab"}[key[0]]},
              "fixVersions": [{"name": v} for v in extra.pop("fix", ())], "labels": list(extra.pop("labels", ())),
              "components": [{"name": c} for c in extra.pop("components", ())], "issuelinks": extra.pop("links", []),
              "customfield_10020": [SPRINT[s] for s in extra.pop("sprints", ())] or None}
    fields.update(extra)
    return {"key": key, "fields": fields}


def link(kind, side, target):
    return {"type": {"name": kind}, side: {"key": target}}


TINY = (
    issue("P-1", fix=["1.0"], labels=["ui"], components=["web"], sprints=["P-1", "P-2"], duedate="2026-11-20",
          links=[link("Dependency", "outwardIssue", "P-2"), link("Blocks", "inwardIssue", "P-3"),
                 link("Blocks", "outwardIssue", "P-4")]),
    issue("P-2", status="In Progress", category="indeterminate", fix=["1.0"], priority="Critical", sprints=["P-1"],
          duedate="2026-12-10", created="2026-10-01T10:00:00.000+0000"),
    issue("P-3", status="Closed", category="done", resolution={"name": "Won't Fix"}, fix=["0.9"], labels=["ui"],
          resolutiondate="2026-11-25T08:00:00.000+0000", assignee="ana1", reporter="ben"),
    issue("P-4", assignee="ana2", priority="Blocker", fix=["1.0"], components=["web"], sprints=["P-2"]),
    issue("P-5", assignee=None, components=["web"], created="2026-11-30T10:00:00.000+0000", reporter="ben"),
    issue("Q-1", assignee="ben", priority="Critical", duedate="2026-12-05", sprints=["Q-1"], type="Task"),
    issue("Q-2", status="Resolved", category="done", resolution={"name": "Fixed"}, fix=["2.0"], assignee="mia",
          resolutiondate="2026-11-18T08:00:00.000+0000"),
)


@pytest.fixture
def tiny():
    people = tuple({"accountId": k, "displayName": v} for k, v in PEOPLE.items())
    return jt.Tracker(TODAY, TINY, people, {i["key"]: n for n, i in enumerate(TINY, start=1)}, {"mia": "MANAGER"})


def keys(truth):
    return sorted(truth.raw_values)


def test_lists_and_counts_follow_the_access_rule(tiny):
    assert keys(jt.single(tiny, "mia", "t_open_version", {"version": "1.0"})) == ["P-1", "P-2", "P-4"]
    assert keys(jt.single(tiny, "ben", "t_open_version", {"version": "1.0"})) == ["P-1", "P-2"]
    assert jt.single(tiny, "mia", "t_count_label", {"label": "ui"}).figure == 2  # any status
    assert keys(jt.single(tiny, "mia", "t_label", {"label": "ui"})) == ["P-1"]  # open only
    assert jt.single(tiny, "ana2", "t_count_label", {"label": "ui"}).kind == "refusal"
    assert jt.single(tiny, "mia", "t_unassigned_open", {"project": "P"}).figure == 1
    assert jt.single(tiny, "ben", "t_unassigned_open", {"project": "P"}).kind == "refusal"
    assert jt.single(tiny, "mia", "t_resolution", {"project": "P", "resolution": "Won't Fix"}).figure == 1
    assert jt.single(tiny, "mia", "t_status_project", {"project": "P", "status": "In Progress"}).figure == 1
    assert jt.single(tiny, "mia", "t_priority_type", {"priority": "Critical", "type": "Bug"}).figure == 1
    assert jt.single(tiny, "mia", "t_unresolved_type", {"type": "Bug", "project": "P"}).figure == 4


def test_windows_are_calendar_ones(tiny):
    assert jt.window(TODAY, "last_week") == (dt.date(2026, 11, 23), dt.date(2026, 11, 30))
    assert jt.window(TODAY, "last_month") == (dt.date(2026, 11, 1), dt.date(2026, 12, 1))
    assert jt.single(tiny, "mia", "t_created_window", {"project": "P", "window": "last_week"}).figure == 3
    assert jt.single(tiny, "mia", "t_resolved_window", {"window": "last_week"}).figure == 1
    assert jt.single(tiny, "mia", "t_resolved_window", {"window": "last_month"}).figure == 2


def test_links_people_and_records(tiny):
    assert keys(jt.single(tiny, "mia", "t_depends", {"key": "P-1"})) == ["P-2", "P-3"]  # not P-4: P-1 blocks it
    assert keys(jt.single(tiny, "ben", "t_depends", {"key": "P-1"})) == ["P-2"]  # P-3 is hidden from Ben
    assert jt.single(tiny, "ben", "t_depends", {"key": "P-3"}).kind == "refusal"  # not his
    assert jt.single(tiny, "mia", "t_person_open", {"first": "Ana"}).kind == "clarify"
    assert jt.single(tiny, "mia", "t_person_open", {"first": "ben"}).figure == 3
    reporter = jt.single(tiny, "mia", "t_reporter_of", {"key": "P-3"})
    assert reporter.kind == "field" and "ben okafor" in reporter.values[0]
    assert "2026-11-24" in jt.single(tiny, "mia", "t_created_of", {"key": "P-1"}).values[0]
    assert keys(jt.single(tiny, "ben", "t_my_most_urgent", {})) == ["Q-1"]  # Critical, due before P-2's date
    top = jt.single(tiny, "mia", "t_top_reporter", {"project": "P"})
    assert top.figure == 3 and "mia van der berg" in top.values[0]
    assert jt.single(tiny, "mia", "t_per_component", {"project": "P"}).figure == 3


def test_chains(tiny):
    sprint = {"sprint": "P Sprint 2"}
    assert keys(jt.chain(tiny, "mia", "e_sprint", 0, sprint)) == ["P-1", "P-4"]
    assert keys(jt.chain(tiny, "mia", "e_sprint", 1, sprint)) == ["P-1", "P-2"]  # P Sprint 1, JQL's reading
    assert jt.chain(tiny, "mia", "e_sprint", 2, sprint).figure == 2  # Ben holds both
    overdue = {"project": "P", "project2": "Q"}
    assert keys(jt.chain(tiny, "mia", "e_project_overdue", 0, overdue)) == ["P-1"]
    assert jt.chain(tiny, "mia", "e_project_overdue", 1, overdue).kind == "refusal"  # Q-1 is due later
    version = {"version": "1.0", "version2": "0.9", "person": "ben"}
    assert jt.chain(tiny, "mia", "e_version", 0, version).kind == "refusal"  # nothing of 1.0 is resolved
    assert keys(jt.chain(tiny, "mia", "e_version", 2, version)) == ["P-3"]
    person = {"person": "ben", "status": "Open", "person2": "ana2", "priority": "Blocker"}
    assert keys(jt.chain(tiny, "mia", "e_person_status", 1, person)) == ["P-4"]
    assert jt.chain(tiny, "mia", "e_person_status", 2, person).figure == 1
    assert keys(jt.chain(tiny, "ben", "e_type_switch", 2, {"type": "Bug", "type2": "Task"})) == ["Q-1"]
    urgent = jt.chain(tiny, "ben", "e_urgent", 1, {"field": "due"})
    assert urgent.kind == "field" and "2026-12-05" in urgent.values[0]


def test_the_judge_of_the_new_kinds(tiny):
    hidden = tiny.hidden("ben", frozenset(f"[TASK #{n}]" for n in range(1, 8)))
    assert "[TASK #3]" in hidden.anchors and "[TASK #1]" not in hidden.anchors
    field = jt.single(tiny, "mia", "t_reporter_of", {"key": "P-3"})
    nothing = Hidden(frozenset(), ())
    assert judge_tracker(field, "P-3 was reported by Ben Okafor.", nothing).outcome == "right"
    assert judge_tracker(field, "[TASK #3] P-3 — Assignee: Ana María Quintero", nothing).outcome == "wrong"
    record = jt.single(tiny, "ben", "t_my_most_urgent", {})
    assert judge_tracker(record, "Your most urgent: [TASK #6] Q-1", nothing).outcome == "right"
    assert judge_tracker(record, "[TASK #2] then [TASK #6]", nothing).outcome == "wrong"
    clarify = jt.single(tiny, "mia", "t_person_open", {"first": "Ana"})
    assert judge_tracker(clarify, "Which Ana: Ana María Quintero or Ana Pérez?", nothing).outcome == "right"
    assert judge_tracker(clarify, "Ana Pérez has 1 open issue.", nothing).outcome == "wrong"
    count = jt.single(tiny, "mia", "t_unassigned_open", {"project": "P"})  # 1
    assert judge_tracker(count, "Open issues of P with nobody assigned: 1", nothing).outcome == "right"
    assert judge_tracker(count, "The priority with most:\n1. HIGH — 185\n2. LOW — 87", nothing).outcome == "wrong"
    assert judge_tracker(count, "Nothing is about that; the closest: TLY-1 [TASK #5]", nothing).outcome == "wrong"
    assert judge_tracker(count, "[TASK #5] fix version 1.1.1", nothing).outcome == "wrong"
    created = jt.single(tiny, "mia", "t_created_of", {"key": "P-1"})  # 2026-11-24
    card = "[TASK #1] P-1\nAssignee: Ben Okafor | Due: 2026-11-24\nLatest comments:\n- Ana Pérez (2026-11-24): ok"
    assert judge_tracker(created, card, nothing).outcome == "wrong"
    assert judge_tracker(created, card + "\nCreated: 2026-11-24", nothing).outcome == "right"
    assert judge_tracker(field, "[TASK #3] P-3\nAssignee: Ben Okafor | Status: Closed", nothing).outcome == "wrong"
    leak = jt.single(tiny, "ben", "t_my_open", {})
    assert judge_tracker(leak, "[TASK #1] [TASK #2] [TASK #6] and [TASK #3]", hidden).leak
