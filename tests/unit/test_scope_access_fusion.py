import pytest

from app.domain import Caller, Role, Scope
from app.rag.access import NOBODY, PUBLIC, audience, is_visible, visible_audiences
from app.rag.fusion import reciprocal_rank_fusion
from app.rag.scope import ScopeError, build_scope


def test_default_scope_is_unscoped():
    assert build_scope() == Scope(project="all", sprint_id=None, source_types=None, doc_types=None)


@pytest.mark.parametrize(
    "project, expected", [(None, "all"), ("all", "all"), ("NONE", "none"), ("12", 12), (3, 3)]
)
def test_project_scope(project, expected):
    assert build_scope(project=project).project == expected


@pytest.mark.parametrize("bad", ["0", "-1", 0, "abc", "1.5", True, 2**63, str(2**63)])
def test_bad_project_scope(bad):
    with pytest.raises(ScopeError):
        build_scope(project=bad)


def test_source_types_normalised_and_validated():
    assert build_scope(source_types="doc, TASK").source_types == ("task", "doc")
    with pytest.raises(ScopeError, match="unknown source type"):
        build_scope(source_types=["task", "comment"])
    with pytest.raises(ScopeError):
        build_scope(source_types=" , ")
    with pytest.raises(ScopeError):
        build_scope(sprint_id=0)


def test_doc_types_normalised_deduplicated_and_sorted():
    scope = build_scope(doc_types=" wiki,MEETING_NOTES , Wiki")
    assert scope.doc_types == ("MEETING_NOTES", "WIKI") and scope != Scope()
    assert build_scope(doc_types=["release-notes", "Meeting notes"]).doc_types == ("MEETING NOTES", "RELEASE-NOTES")
    assert build_scope(doc_types=["x" * 40]).doc_types == ("X" * 40,)
    assert build_scope(doc_types=None).doc_types is None


@pytest.mark.parametrize("bad", [[], [""], ["  "], "WIKI,,NOTES", ",", ["x" * 41], ["wiki;drop"], ["a'b"],
                                 ["notas de reunión"], ["line\nbreak"], ["straße"], ["ﬁle"],
                                 [3], ["T"] * 101])
def test_bad_doc_types(bad):
    with pytest.raises(ScopeError, match="document type"):
        build_scope(doc_types=bad)


def test_access_rule():
    dev, manager = Caller(5, Role.DEVELOPER), Caller(1, Role.MANAGER)
    assert audience("sprint", None) == PUBLIC and audience("project", None) == PUBLIC
    assert audience("doc", None) == PUBLIC and audience("doc", 5) == 5
    assert audience("task", None) == NOBODY and audience("task", 5) == 5
    assert visible_audiences(manager) is None
    assert visible_audiences(dev) == (PUBLIC, 5)
    assert is_visible(dev, "task", 5) and not is_visible(dev, "task", 6)
    assert not is_visible(dev, "task", None) and is_visible(manager, "task", None)
    assert is_visible(dev, "doc", None) and not is_visible(dev, "doc", 6)
    assert is_visible(Caller(2, Role.ADMIN), "doc", 6)


def test_rrf_rewards_agreement():
    fused = reciprocal_rank_fusion(["a", "b", "c"], ["c", "a", "d"])
    assert [item for item, _ in fused] == ["a", "c", "b", "d"]
    assert fused[0][1] == pytest.approx(1 / 11 + 1 / 12)  # RRF_K = 10 (app/rag/fusion.py)


def test_backoff_doubles_per_attempt_up_to_its_cap():
    from app.services.indexing import Backoff

    backoff = Backoff(base_s=1.0, cap_s=10.0)
    assert [backoff.delay_s(n) for n in (1, 2, 3, 4, 5, 9)] == [1.0, 2.0, 4.0, 8.0, 10.0, 10.0]
    assert Backoff().delay_s(7) == 0.0  # one-shot callers retry at once
