"""The access rule's explanations (app.rag.access.explain): each branch's words, and the verdict is is_visible's."""

from __future__ import annotations

import itertools

import pytest

from app.domain import Caller, Role
from app.rag.access import explain, is_visible

ANA, BEN = Caller(2, Role.DEVELOPER), 3
NAMES = {2: "Ana Garcia", 3: "Ben Carter"}


@pytest.mark.parametrize("caller, source_type, owner, visible, reason", [
    (ANA, "task", 2, True, "assigned to Ana Garcia"),
    (ANA, "task", BEN, False, "assigned to Ben Carter"),
    (ANA, "task", None, False, "unassigned task: managers and admins only"),
    (ANA, "doc", None, True, "organisation-wide document"),
    (ANA, "doc", 2, True, "owned by Ana Garcia"),
    (ANA, "doc", BEN, False, "owned by Ben Carter"),
    (ANA, "sprint", None, True, "every employee sees sprints"),
    (ANA, "project", None, True, "every employee sees projects"),
    (Caller(1, Role.MANAGER), "task", BEN, True, "manager sees all"),
    (Caller(8, Role.ADMIN), "task", None, True, "admin sees all"),
])
def test_each_branch_of_the_rule_in_its_own_words(caller, source_type, owner, visible, reason):
    verdict = explain(caller, source_type, owner, NAMES.__getitem__)
    assert (verdict.visible, verdict.reason) == (visible, reason)


def test_the_verdict_is_always_is_visibles():
    callers = [Caller(e, r) for e in (1, 2, 3) for r in Role]
    for caller, source_type, owner in itertools.product(callers, ("task", "doc", "sprint", "project"), (None, 1, 2, 3)):
        assert explain(caller, source_type, owner).visible == is_visible(caller, source_type, owner)


def test_an_unknown_name_falls_back_to_the_id():
    assert explain(ANA, "task", 42).reason == "assigned to employee #42"


def test_a_restricted_task_is_granted_by_no_membership_only_by_its_assignee():
    """TASKS.RESTRICTED (a Jira issue-security level): the membership branch skips it; the assignee, managers and
    admins keep it; every other source type ignores the flag. The verdict is is_visible's, restricted or not."""
    member = Caller(2, Role.DEVELOPER, frozenset({7}))
    assert is_visible(member, "task", BEN, 7) and not is_visible(member, "task", BEN, 7, restricted=True)
    assert not is_visible(member, "task", None, 7, restricted=True)
    assert is_visible(member, "task", 2, 7, restricted=True)  # her own
    assert is_visible(Caller(1, Role.MANAGER), "task", BEN, 7, restricted=True)
    hidden = explain(member, "task", BEN, NAMES.__getitem__, 7, restricted=True)
    assert (hidden.visible, hidden.reason) == (False, "restricted in the tracker: its assignee, managers and admins only")
    outside = explain(member, "task", BEN, NAMES.__getitem__, 8, restricted=True)  # not her project: as before
    assert (outside.visible, outside.reason) == (False, "assigned to Ben Carter")
    callers = [Caller(e, r, m) for e in (1, 2, 3) for r in Role for m in (None, frozenset({7}))]
    for caller, owner, project, flag in itertools.product(callers, (None, 1, 2, 3), (None, 7, 8), (False, True)):
        assert explain(caller, "task", owner, project_id=project, restricted=flag).visible == \
            is_visible(caller, "task", owner, project, flag)
