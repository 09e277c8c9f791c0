"""The randomized access test on an imported tracker: a Jira export (random assignees, comment authors, sprints,
links) imported through the pipeline, then random API writes and searches checked against the source tables
(scripts/bench_access.py's World), then a re-import that reassigns issues in the tracker, searched with the
worker stopped: a developer sees only the issues assigned to them, at once, never fewer than they may."""

from __future__ import annotations

import random

import numpy as np

from app.entities import EMPLOYEES
from app.sources import jira
from app.sources.pipeline import import_issues
from scripts.bench_access import WORDS, Tally, World, run
from tests.sources import jira_data

SOURCE = "jira:https://example.atlassian.net"
PEOPLE = list(jira_data.PEOPLE)


def tracker(rng: random.Random, issues: int = 40) -> list[dict]:
    out = []
    for n in range(1, issues + 1):
        comments = [jira_data.comment(100 * n + c, rng.choice(PEOPLE), " ".join(rng.choices(WORDS, k=6)), n + c)
                    for c in range(rng.randint(0, 3))]
        links = [jira_data.blocked_by(f"PAY-{rng.randint(1, issues)}")] if rng.random() < 0.3 else []
        out.append(jira_data.issue(
            f"{rng.choice(['PAY', 'MOB'])}-{n}", " ".join(rng.choices(WORDS, k=5)), minutes=n,
            description=" ".join(rng.choices(WORDS, k=12)), assignee=rng.choice([*PEOPLE, None]), comments=comments,
            links=links, sprint=jira_data.sprint_object(rng.randint(1, 3), f"Sprint {rng.randint(1, 3)}")))
    return out


def import_all(engine, raw: list[dict]):
    counts = import_issues(engine, SOURCE, [jira.issue_of(i) for i in sorted(raw, key=jira.issue_order)])
    assert counts.failed == 0, counts.errors
    return counts


def test_random_writes_and_searches_on_an_imported_tracker_never_leak_nor_come_up_short(sqlite_engine):
    rng = random.Random(23)
    raw = tracker(rng)

    def populate(world: World) -> None:
        import_all(world.engine, raw)
        for person in world.engine.list_records(EMPLOYEES, [], None, 100).items[:1]:  # one manager, the rest developers
            world.engine.update(EMPLOYEES, person["employee_id"], {"ROLE": "MANAGER"})
        world.drain()

    tally = run(sqlite_engine, cases=250, seed=23, populate=populate)
    assert tally.searches > 60 and tally.writes > 60
    assert (tally.leaks, tally.short) == (0, 0), tally.failures


def test_a_reimport_that_reassigns_issues_moves_access_at_once(sqlite_engine):
    rng = random.Random(5)
    raw = tracker(rng, 30)
    world = World(sqlite_engine, rng)
    import_all(sqlite_engine, raw)
    world.drain()
    vectors = np.asarray([sqlite_engine.embed_query(w) for w in WORDS], dtype=np.float32)
    for issue in raw:  # the tracker reassigns most issues; the re-import runs with the worker stopped
        if rng.random() < 0.7:
            issue["fields"]["assignee"] = jira_data.user(rng.choice([*PEOPLE, None]))
    assert import_all(sqlite_engine, raw).updated > 10
    world.clean = False
    tally = Tally()
    for _ in range(80):
        world.search_and_check(tally, vectors)
    assert tally.searches == 80
    assert (tally.leaks, tally.short) == (0, 0), tally.failures
