"""Randomized access on both engines: random writes (mostly with the worker stopped) and random searches,
each checked against the source tables for leaks and short results (scripts/bench_access.py runs
10,000+ cases; the suite runs a bounded few hundred)."""

from __future__ import annotations

from scripts.bench_access import run


def test_random_writes_and_searches_never_leak_nor_come_up_short(engine):
    tally = run(engine, cases=400, seed=11)
    assert tally.searches > 100 and tally.searches_with_worker_stopped > 50 and tally.writes > 100
    assert (tally.leaks, tally.short) == (0, 0), tally.failures
