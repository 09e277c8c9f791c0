import datetime as dt

from app.records_model import CommentSource, DocSource, ProjectSource, SprintSource, TaskSource
from app.rag.templates import body_sections, header_line


def task(**overrides):
    values = dict(
        task_id=12, title="Fix login redirect", status="IN_PROGRESS", priority="HIGH",
        sprint_id=3, sprint_name="Sprint 3", project_id=1, project_name="Apollo",
        assignee_id=5, assignee_first="Ana", assignee_last="Ruiz", story_points=5.0,
        estimated_hours=7.5, expected_end_date=dt.date(2026, 12, 1),
        description="Users land on /home after login.", comments=(CommentSource("Repro on Safari"), CommentSource("Fixed in #88")),
    )
    values.update(overrides)
    return TaskSource(**values)


def render(record):
    return "\n".join([header_line(record), *body_sections(record)])


def test_task_template_is_exact():
    assert render(task()) == (
        "[TASK #12] Fix login redirect\n"
        "Status: IN_PROGRESS | Priority: HIGH | Sprint: Sprint 3\n"
        "Project: Apollo\n"
        "Assignee: Ana Ruiz\n"
        "Story points: 5\n"
        "Estimated hours: 7.5\n"
        "Due: 2026-12-01\n"
        "Description: Users land on /home after login.\n"
        "Comments:\n"
        "- Repro on Safari\n"
        "- Fixed in #88"
    )


def test_task_template_defaults_and_omissions():
    text = render(task(sprint_name=None, project_name=None, assignee_first=None, assignee_last=None,
                       story_points=None, estimated_hours=None, expected_end_date=None,
                       description=None, comments=()))
    assert text == (
        "[TASK #12] Fix login redirect\n"
        "Status: IN_PROGRESS | Priority: HIGH | Sprint: none\n"
        "Project: none\n"
        "Assignee: unassigned\n"
        "Due: -\n"
        "Description: -"
    )


def test_sprint_project_doc_templates():
    sprint = SprintSource(4, "Sprint 4", "ACTIVE", 1, "Apollo", "Ship SSO", dt.date(2026, 1, 5), dt.date(2026, 1, 19))
    assert render(sprint) == (
        "[SPRINT #4] Sprint 4 (ACTIVE)\nProject: Apollo\nDates: 2026-01-05 -> 2026-01-19\nGoal: Ship SSO"
    )
    project = ProjectSource(1, "Apollo", "ACTIVE", "  ", dt.date(2026, 1, 1), None)
    assert render(project) == "[PROJECT #1] Apollo (ACTIVE)\nDates: 2026-01-01 -> -"
    described = ProjectSource(1, "Apollo", "ACTIVE", "Customer portal", None, None)
    assert render(described).endswith("Description: Customer portal")
    doc = DocSource(9, "Retro notes", "First para.\n\nSecond para.", None, None, "MEETING_NOTES")
    assert render(doc) == "[DOC #9] Retro notes\nFirst para.\nSecond para."


def test_an_imported_task_shows_its_key_type_tracker_status_fields_links_and_comment_authors():
    from app.records_model import TaskLink

    imported = task(
        task_id=501, title="Refund fails for partial captures", status="IN_REVIEW", story_points=None,
        estimated_hours=None, external_key="PAY-1210", issue_type="Bug", status_name="In QE Test",
        labels="backend, refunds", fix_versions="2026.12", components=" Payments API ",
        links=(TaskLink("RELATES", "MOB-9"), TaskLink("BLOCKED_BY", "PAY-56", 56), TaskLink("BLOCKS", "PAY-80"),
               TaskLink("BLOCKED_BY", "OPS-3")),
        comments=(CommentSource("Blocked until the PSP answers.", 3, "Chen Wei", dt.datetime(2026, 11, 20, 9, 15)),
                  CommentSource("Seen again", None, None, dt.datetime(2026, 11, 21, 8, 0)),
                  CommentSource("Left by an old client", 4, "Ana Ruiz", None)),
    )
    assert render(imported) == (
        "[TASK #501] PAY-1210 (Bug) Refund fails for partial captures\n"
        "Status: IN_REVIEW (In QE Test) | Priority: HIGH | Sprint: Sprint 3\n"
        "Project: Apollo\n"
        "Assignee: Ana Ruiz\n"
        "Due: 2026-12-01\n"
        "Labels: backend, refunds\n"
        "Fix versions: 2026.12\n"
        "Components: Payments API\n"
        "Blocked by: PAY-56, OPS-3\n"
        "Blocks: PAY-80\n"
        "Relates to: MOB-9\n"
        "Description: Users land on /home after login.\n"
        "Comments:\n"
        "- Chen Wei (2026-11-20): Blocked until the PSP answers.\n"
        "- (2026-11-21): Seen again\n"
        "- Ana Ruiz: Left by an old client"
    )


def test_the_tracker_status_name_is_shown_only_where_it_says_something_else():
    assert "Status: IN_PROGRESS | " in render(task(status_name="In Progress"))
    assert "Status: DONE (Won't Fix) | " in render(task(status="DONE", status_name="Won't Fix"))
    assert "Status: - (Reopened) | " in render(task(status=None, status_name="Reopened"))
    assert header_line(task(issue_type="Story")) == "[TASK #12] (Story) Fix login redirect"
    assert header_line(task(external_key="octo/repo#123", issue_type="  ")) == "[TASK #12] octo/repo#123 Fix login redirect"
    assert "Labels" not in render(task(labels="  ", fix_versions=None))


def test_the_tracker_fields_each_get_a_line_and_are_left_out_when_empty():
    from app.records_model import TaskLink

    full = task(
        story_points=None, estimated_hours=None, comments=(), labels="ui", fix_versions="2.1.0",
        reporter_id=8, reporter_first="Chen", reporter_last="Wei", created_at=dt.datetime(2026, 11, 2, 9, 30),
        resolved_at=dt.datetime(2026, 11, 21, 23, 59), resolution="Won't Fix", affects_versions="1.9.4, 2.0.0",
        environment="Android 14\n  Pixel 8", parent_key="MOB-7", parent_id=7,
        links=(TaskLink("DEPENDS_ON", "MOB-3"), TaskLink("DUPLICATED_BY", "MOB-44"), TaskLink("CLONES", "MOB-1"),
               TaskLink("DEPENDED_ON_BY", "MOB-5"), TaskLink("DUPLICATES", "MOB-2"), TaskLink("CLONED_BY", "MOB-9")),
    )
    assert render(full) == (
        "[TASK #12] Fix login redirect\n"
        "Status: IN_PROGRESS | Priority: HIGH | Sprint: Sprint 3\n"
        "Project: Apollo\n"
        "Assignee: Ana Ruiz\n"
        "Reporter: Chen Wei\n"
        "Due: 2026-12-01\n"
        "Created: 2026-11-02\n"
        "Resolution: Won't Fix (2026-11-21)\n"
        "Labels: ui\n"
        "Fix versions: 2.1.0\n"
        "Affects versions: 1.9.4, 2.0.0\n"
        "Environment: Android 14 Pixel 8\n"
        "Parent: MOB-7\n"
        "Depends on: MOB-3\n"
        "Depended on by: MOB-5\n"
        "Duplicates: MOB-2\n"
        "Duplicated by: MOB-44\n"
        "Clones: MOB-1\n"
        "Cloned by: MOB-9\n"
        "Description: Users land on /home after login."
    )
    # A parent known only by its id; a resolution date without a name; a reporter who no longer exists.
    text = render(task(parent_id=7, resolved_at=dt.datetime(2026, 11, 21), reporter_id=None, reporter_first=None))
    assert "Parent: #7" in text and "Resolution: Resolved (2026-11-21)" in text and "Reporter" not in text
    long = render(task(environment="x" * 400))
    assert "Environment: " + "x" * 300 + "…" in long
    plain = render(task())
    for label in ("Reporter", "Created", "Resolution", "Affects versions", "Environment", "Parent"):
        assert f"\n{label}: " not in plain


def test_the_trackers_own_priority_is_shown_beside_ours_only_where_it_says_something_else():
    assert "| Priority: HIGH (Major) | " in render(task(priority="HIGH", priority_name="Major"))
    assert "| Priority: HIGH | " in render(task(priority="HIGH", priority_name="High"))
    assert "| Priority: - (Blocker) | " in render(task(priority=None, priority_name="Blocker"))
    assert "| Priority: HIGH | " in render(task(priority="HIGH", priority_name=None))
