"""The read path on both engines: the access rule inside the query, scopes, and no result loss."""

from __future__ import annotations

import pytest

from app.domain import Scope
from app.services.search import UnknownCallerError, resolve_caller, search
from tests.support import document, drain_all, employee, project, sprint, task


@pytest.fixture
def team(engine):
    """Two projects, two developers, a manager; tasks, sprints and documents on both sides."""
    ids = {
        "manager": employee(engine, "Mia", "Boss", role="MANAGER", telegram_id="tg-1"),
        "ana": employee(engine, "Ana", "Ruiz"),
        "leo": employee(engine, "Leo", "Diaz"),
    }
    ids["apollo"] = project(engine, "Apollo", "Customer portal")
    ids["hermes"] = project(engine, "Hermes", "Billing engine")
    ids["s1"] = sprint(engine, ids["apollo"], "Apollo sprint 1", "Login and SSO")
    ids["s2"] = sprint(engine, ids["hermes"], "Hermes sprint 1", "Invoices")
    ids["ana_tasks"] = [
        task(engine, f"Login bug {i}", "Users are redirected to the wrong page after login",
             assignee_id=ids["ana"], project_id=ids["apollo"], sprint_id=ids["s1"]) for i in range(6)
    ]
    ids["leo_tasks"] = [
        task(engine, f"Invoice rounding {i}", "Totals are off by one cent on invoices",
             assignee_id=ids["leo"], project_id=ids["hermes"], sprint_id=ids["s2"]) for i in range(6)
    ]
    ids["orphan"] = task(engine, "Unassigned login cleanup", "Nobody owns this login task yet",
                         project_id=ids["apollo"])
    ids["org_doc"] = document(engine, "Onboarding", "How we work: login to the VPN first.")
    ids["leo_doc"] = document(engine, "Leo's notes", "Private login notes", owner_id=ids["leo"])
    ids["loose"] = task(engine, "No project task", "Login page copy", assignee_id=ids["ana"])
    drain_all(engine)
    return ids


def keys(hits):
    return {(h.source_type, h.source_id) for h in hits}


@pytest.mark.parametrize("mode", ["vector", "hybrid"])
def test_developer_sees_only_what_the_rule_allows(engine, team, mode):
    ana = resolve_caller(engine, team["ana"])
    hits = search(engine, "login", ana, 50, mode=mode).result.hits
    visible_tasks = {("task", t) for t in team["ana_tasks"]} | {("task", team["loose"])}
    allowed = visible_tasks | {("project", team["apollo"]), ("project", team["hermes"]),
                               ("sprint", team["s1"]), ("sprint", team["s2"]), ("doc", team["org_doc"])}
    assert keys(hits) == allowed  # 50 > visible: everything visible comes back, nothing else
    assert ("task", team["orphan"]) not in keys(hits) and ("doc", team["leo_doc"]) not in keys(hits)


@pytest.mark.parametrize("mode", ["vector", "hybrid"])
def test_manager_sees_everything(engine, team, mode):
    manager = resolve_caller(engine, team["manager"])
    hits = search(engine, "login", manager, 100, mode=mode).result.hits
    assert ("task", team["orphan"]) in keys(hits) and ("doc", team["leo_doc"]) in keys(hits)
    assert len(hits) == 6 + 6 + 1 + 1 + 2 + 2 + 2  # every chunk


def test_role_comes_from_employees(engine, team):
    assert resolve_caller(engine, team["manager"]).sees_everything
    assert not resolve_caller(engine, team["ana"]).sees_everything
    assert resolve_caller(engine, telegram_id="tg-1").employee_id == team["manager"]
    with pytest.raises(UnknownCallerError):
        resolve_caller(engine, 987_654)


@pytest.mark.parametrize("mode", ["vector", "hybrid"])
def test_developer_gets_k_results_when_k_are_visible(engine, team, mode):
    """The invariant an approximate or post-filtered KNN breaks: k visible => k returned."""
    leo = resolve_caller(engine, team["leo"])
    for k in (1, 3, 7, 10):
        hits = search(engine, "login redirect", leo, k, mode=mode).result.hits
        assert len(hits) == k
    # Leo sees 6 tasks + 1 doc? no: his doc + org doc + 2 projects + 2 sprints + 6 tasks = 12 chunks.
    assert len(search(engine, "anything", leo, 100, mode=mode).result.hits) == 12


def test_scopes_combine(engine, team):
    manager = resolve_caller(engine, team["manager"])
    def run(scope):
        return keys(search(engine, "login invoice", manager, 100, scope, mode="vector").result.hits)

    apollo = run(Scope(project=team["apollo"]))
    assert apollo == ({("task", t) for t in team["ana_tasks"]} | {("task", team["orphan"]),
                      ("project", team["apollo"]), ("sprint", team["s1"])})
    assert run(Scope(project="none")) == {("task", team["loose"]), ("doc", team["org_doc"]),
                                          ("doc", team["leo_doc"])}
    assert run(Scope(sprint_id=team["s2"])) == {("task", t) for t in team["leo_tasks"]} | {("sprint", team["s2"])}
    assert run(Scope(project=team["hermes"], source_types=("sprint", "project"))) == {
        ("sprint", team["s2"]), ("project", team["hermes"])}
    assert run(Scope(source_types=("doc",))) == {("doc", team["org_doc"]), ("doc", team["leo_doc"])}


def test_scope_and_role_together(engine, team):
    ana = resolve_caller(engine, team["ana"])
    hits = search(engine, "login", ana, 100, Scope(project=team["hermes"]), mode="vector").result.hits
    assert keys(hits) == {("project", team["hermes"]), ("sprint", team["s2"])}


def test_hybrid_ranks_an_exact_keyword_match_first(engine, team):
    manager = resolve_caller(engine, team["manager"])
    t = task(engine, "Rotate the XK-42 signing key", "Quarterly key rotation")
    drain_all(engine)
    hits = search(engine, "XK-42", manager, 3, mode="hybrid").result.hits
    assert hits[0].source_id == t and hits[0].source_type == "task"
    assert all(h.score > 0 for h in hits)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_lexical_developer_never_gets_a_chunk_they_cannot_see(engine, team):
    ana = resolve_caller(engine, team["ana"])
    found = search(engine, "login", ana, 50, mode="lexical").result
    # Only chunks with the word: Ana's tasks, the sprint whose goal names it, the org-wide document.
    assert keys(found.hits) == ({("task", t) for t in team["ana_tasks"]} | {("task", team["loose"])}
                                | {("sprint", team["s1"]), ("doc", team["org_doc"])})
    assert found.mode == "lexical" and all(0 <= h.distance <= 2 for h in found.hits)  # vector distance kept
    assert [h.score for h in found.hits] == sorted((h.score for h in found.hits), reverse=True)
    manager = resolve_caller(engine, team["manager"])
    assert {("task", team["orphan"]), ("doc", team["leo_doc"])} <= keys(
        search(engine, "login", manager, 50, mode="lexical").result.hits)


def test_lexical_applies_the_scope_inside_the_query_and_returns_k(engine, team):
    ana = resolve_caller(engine, team["ana"])
    def run(scope, k=50, question="login"):
        return search(engine, question, ana, k, scope, mode="lexical").result.hits

    assert keys(run(Scope(project=team["apollo"], source_types=("task",)))) == {("task", t) for t in team["ana_tasks"]}
    assert keys(run(Scope(project="none", source_types=("task",)))) == {("task", team["loose"])}
    assert keys(run(Scope(project=team["hermes"]))) == set()  # Leo's login notes are not Ana's
    assert keys(run(Scope(sprint_id=team["s2"]), question="invoices")) == {("sprint", team["s2"])}
    for k in (1, 3, 7):  # 9 visible chunks name login: k of them, never fewer
        assert len(run(Scope(), k)) == k


@pytest.mark.parametrize("question", ["the of and it", "?!", "and or not about", "_%", "x" * 300])
def test_lexical_question_without_a_searchable_term_finds_nothing_without_an_error(engine, team, question):
    manager = resolve_caller(engine, team["manager"])
    assert search(engine, question, manager, 10, mode="lexical").result.hits == []
    hybrid = search(engine, question, manager, 10, mode="hybrid").result.hits
    assert len(hybrid) == 10  # hybrid skips the lexical arm and answers from vectors


def test_lexical_matches_reserved_words_and_digits_as_plain_terms(engine, team):
    manager = resolve_caller(engine, team["manager"])
    t = task(engine, "Near about within 2048 accum minus", "Not and or: words Oracle Text reserves")
    drain_all(engine)
    for question in ("near", "within", "accum minus", "2048", "NEAR(within, accum)"):
        hits = search(engine, question, manager, 3, mode="lexical").result.hits
        assert hits and hits[0].source_id == t and hits[0].source_type == "task", question


def test_vector_results_ordered_by_distance(engine, team):
    manager = resolve_caller(engine, team["manager"])
    hits = search(engine, "invoice totals rounding", manager, 8, mode="vector").result.hits
    distances = [h.distance for h in hits]
    assert distances == sorted(distances)
    assert hits[0].source_id in team["leo_tasks"]


def test_reassigning_a_document_moves_its_visibility(engine, team):
    """Same text, new owner: the chunk must follow the owner, not be skipped as unchanged."""
    from app.entities import DOCUMENTS

    leo, ana = resolve_caller(engine, team["leo"]), resolve_caller(engine, team["ana"])
    doc = ("doc", team["leo_doc"])
    assert doc in keys(search(engine, "private notes", leo, 100, mode="vector").result.hits)
    engine.update(DOCUMENTS, team["leo_doc"], {"OWNER_EMPLOYEE_ID": team["ana"], "PROJECT_ID": team["apollo"]})
    drain_all(engine)
    assert doc not in keys(search(engine, "private notes", leo, 100, mode="vector").result.hits)
    assert doc in keys(search(engine, "private notes", ana, 100, Scope(project=team["apollo"]),
                              mode="vector").result.hits)


# --- document types -----------------------------------------------------------------------------

@pytest.fixture
def library(engine, team):
    """The team plus documents of several types: the team's two documents are WIKI pages."""
    ids = dict(team)
    ids["notes_apollo"] = document(engine, "Apollo sync notes", "Login SSO rollout agreed in the sync.",
                                   project_id=team["apollo"], doc_type="MEETING_NOTES")
    ids["notes_leo"] = document(engine, "Leo's 1:1 notes", "Login rate limits, private.", owner_id=team["leo"],
                                project_id=team["hermes"], doc_type="MEETING_NOTES")
    ids["adr"] = document(engine, "ADR 7: session tokens", "Login sessions use rotating tokens.", doc_type="ADR")
    ids["untyped"] = document(engine, "Scratchpad", "Login ideas, no type yet.", doc_type=None)
    drain_all(engine)
    return ids


def split(hits):
    """(document keys, every other key) of a search answer."""
    found = keys(hits)
    return {k for k in found if k[0] == "doc"}, {k for k in found if k[0] != "doc"}


@pytest.mark.parametrize("mode", ["vector", "hybrid"])
def test_doc_types_narrow_documents_and_leave_other_chunks_alone(engine, library, mode):
    manager = resolve_caller(engine, library["manager"])

    def run(scope):
        return split(search(engine, "login", manager, 100, scope, mode=mode).result.hits)

    _, everything_else = run(Scope())
    docs, others = run(Scope(doc_types=("MEETING_NOTES",)))
    assert docs == {("doc", library["notes_apollo"]), ("doc", library["notes_leo"])}
    assert others == everything_else  # tasks, sprints and projects are not narrowed by a doc type
    docs, _ = run(Scope(doc_types=("ADR", "WIKI")))
    assert docs == {("doc", library["adr"]), ("doc", library["org_doc"]), ("doc", library["leo_doc"])}
    assert run(Scope(doc_types=("NO_SUCH_TYPE",)))[0] == set()


def test_doc_types_combine_with_source_types_and_project(engine, library):
    manager = resolve_caller(engine, library["manager"])

    def run(scope):
        return keys(search(engine, "login invoice", manager, 100, scope, mode="vector").result.hits)

    tasks = {("task", t) for t in library["ana_tasks"] + library["leo_tasks"]} | {
        ("task", library["orphan"]), ("task", library["loose"])}
    assert run(Scope(source_types=("task", "doc"), doc_types=("WIKI",))) == tasks | {
        ("doc", library["org_doc"]), ("doc", library["leo_doc"])}
    assert run(Scope(source_types=("doc",), doc_types=("MEETING_NOTES",), project=library["apollo"])) == {
        ("doc", library["notes_apollo"])}
    assert run(Scope(project=library["apollo"], doc_types=("MEETING_NOTES",))) == (
        {("task", t) for t in library["ana_tasks"]} | {("task", library["orphan"]), ("project", library["apollo"]),
                                                       ("sprint", library["s1"]), ("doc", library["notes_apollo"])})


@pytest.mark.parametrize("mode", ["vector", "hybrid"])
def test_a_doc_type_scope_never_shows_a_developer_another_developers_document(engine, library, mode):
    ana = resolve_caller(engine, library["ana"])
    only_docs = Scope(source_types=("doc",), doc_types=("MEETING_NOTES", "WIKI"))
    hits = search(engine, "login notes", ana, 100, only_docs, mode=mode).result.hits
    assert keys(hits) == {("doc", library["org_doc"]), ("doc", library["notes_apollo"])}  # not Leo's two
    leo = resolve_caller(engine, library["leo"])
    hits = search(engine, "login notes", leo, 100, only_docs, mode=mode).result.hits
    assert keys(hits) == {("doc", library["org_doc"]), ("doc", library["leo_doc"]),
                          ("doc", library["notes_apollo"]), ("doc", library["notes_leo"])}


def test_retyping_a_document_moves_it_between_doc_type_scopes(engine, library):
    """Same text, new type: the chunk must be re-written with it, not skipped as unchanged."""
    from app.entities import DOCUMENTS

    manager = resolve_caller(engine, library["manager"])
    adr = ("doc", library["adr"])

    def in_scope(doc_type):
        scope = Scope(source_types=("doc",), doc_types=(doc_type,))
        return adr in keys(search(engine, "session tokens", manager, 100, scope, mode="vector").result.hits)

    assert in_scope("ADR") and not in_scope("WIKI")
    engine.update(DOCUMENTS, library["adr"], {"DOC_TYPE": "wiki"})  # stored as typed; scoped case-insensitively
    drain_all(engine)
    assert in_scope("WIKI") and not in_scope("ADR")


@pytest.mark.parametrize("mode", ["vector", "lexical", "hybrid"])
def test_each_hit_says_where_each_arm_ranked_it(engine, team, mode):
    """The ranks the answer gate and the console read: a mode's own arms only, 1-based, and in
    hybrid and lexical modes exactly the ranks the fused score was computed from."""
    from app.rag.fusion import RRF_K

    manager = resolve_caller(engine, team["manager"])
    hits = search(engine, "login invoice rounding", manager, 10, mode=mode).result.hits
    assert hits
    for position, hit in enumerate(hits, start=1):
        if mode == "vector":
            assert (hit.vector_rank, hit.lexical_rank) == (position, None)
            continue
        if mode == "lexical":
            assert hit.vector_rank is None and hit.lexical_rank == position
        arms = [r for r in (hit.vector_rank, hit.lexical_rank) if r is not None]
        assert arms and all(r >= 1 for r in arms)
        assert hit.score == pytest.approx(sum(1.0 / (RRF_K + r) for r in arms))
    if mode == "hybrid":
        assert any(h.vector_rank and h.lexical_rank for h in hits)


def test_passages_are_embedded_like_the_question_by_the_engines_own_model(engine):
    """engine.embed_texts (the sentences an offline answer chooses among by meaning): one normalised row per
    text, the model that embeds the question (MiniLM has no query/passage prefixes: the same vector), and
    nothing for nothing."""
    import numpy as np

    texts = ["Users are logged out after a password reset.", "Blocked until the API contract is agreed."]
    vectors = np.asarray(engine.embed_texts(texts))
    assert vectors.shape == (2, len(engine.embed_query(texts[0])))
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-3)
    assert np.allclose(vectors[1], engine.embed_query(texts[1]), atol=1e-3)
    assert np.asarray(engine.embed_texts([])).shape[0] == 0
