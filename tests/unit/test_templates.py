import datetime as dt

from app.domain import CommentSource, DocSource, ProjectSource, SprintSource, TaskSource
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
