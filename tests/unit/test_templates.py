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
