"""Randomized access on both engines: random writes (mostly with the worker stopped) and random searches,
each checked against the source tables for leaks and short results (scripts/bench_access.py runs
10,000+ cases; the suite runs a bounded few hundred)."""

from __future__ import annotations

from app.config import Settings
from scripts.bench_access import run

from .faces import mcp_face, openai_face


def test_random_writes_and_searches_never_leak_nor_come_up_short(engine):
    tally = run(engine, cases=400, seed=11)
    assert tally.searches > 100 and tally.searches_with_worker_stopped > 50 and tally.writes > 100
    assert (tally.leaks, tally.short) == (0, 0), tally.failures


def test_a_developers_token_never_gets_a_hidden_chunk_through_a_face(engine):
    """The same random writes and searches, each search also asked through both faces: MCP's search tool with a
    token bound to the asking employee (held to the engine's own guarantee: no leak, no short result), and the
    OpenAI-compatible chat with the asker in `user` (no record it names may be one the asker cannot see)."""
    settings = Settings(_env_file=None)
    with mcp_face(engine, settings) as mcp, openai_face(engine, settings) as chat:
        tally = run(engine, cases=150, seed=5, faces=[mcp, chat])
    assert tally.face_searches == 2 * tally.searches and tally.searches > 40 and tally.searches_with_worker_stopped > 10
    assert (tally.leaks, tally.short) == (0, 0), tally.failures


def test_under_the_project_rule_random_memberships_never_leak_nor_come_up_short(engine):
    """RAG_ACCESS_RULE=project (issue 32): memberships put, deleted, replaced by a sync and dropped with their
    project between queries, mostly with the worker stopped; every search (vector, hybrid, lexical), typed query
    (count, group-by) and lookup by id checked against an independent model read from the tables, with tasks the
    tracker restricts set and cleared between queries (the model keeps the flags it wrote). 5,000 cases
    on SQLite (five searches per state: the fast path), fewer on Oracle's network round trips."""
    cases = 5000 if engine.name == "sqlite" else 800
    tally = run(engine, cases=cases, seed=32, drain_every=0.02, rule="project", burst=5)
    assert tally.cases == cases and tally.searches > 0.7 * cases and tally.searches_with_worker_stopped > 0.6 * cases
    assert tally.membership_writes > 0.05 * cases and tally.tracker_checks > 0.1 * cases and tally.drains > 5
    assert tally.restricted_writes > 0.02 * cases  # tasks the tracker restricts (a Jira issue-security level)
    assert (tally.leaks, tally.short, tally.wrong) == (0, 0, 0), tally.failures


def test_under_the_project_rule_a_developers_token_follows_memberships_through_the_faces(engine):
    settings = Settings(_env_file=None)
    with mcp_face(engine, settings) as mcp, openai_face(engine, settings) as chat:
        tally = run(engine, cases=150, seed=6, faces=[mcp, chat], rule="project")
    assert tally.face_searches == 2 * tally.searches and tally.membership_writes > 10
    assert (tally.leaks, tally.short, tally.wrong) == (0, 0, 0), tally.failures
