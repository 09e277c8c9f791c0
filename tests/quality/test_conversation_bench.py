"""Quality gate: the conversation benchmark (app/services/conversation_bench.py), offline, holds its floor.

The demo data is seeded once per session through the real write path (the module asks a copy of it). The
full benchmark must have the promised shape (≥ 300 questions, a third Spanish, ≥ 40 chains of 3+ turns, a held-out third, askers of
each role, every kind of issue 23); a fixed, seeded, stratified sample of it (SAMPLE_TURNS turns, every
stratum at least once) is asked through the offline chat, and its score — overall, on tuned phrasings and
on held-out ones — may not drop below tests/data/conversation_bench_floor.json, nor leak anything. The full
set, with the loopback LLMs too, is scripts/bench_conversation.py (docs/BENCHMARKS.md).

The floor is main's measured score minus FLOOR_SLACK questions: the demo data's dates move with the day it
is seeded, so "due this week" is a different set on a Monday than on a Friday. Raise it when answers improve.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.config import Settings
from app.evals import conversation_cases
from app.evals.conversation_cases import FAMILY
from app.services import conversation_bench

FLOOR = Path(__file__).resolve().parents[1] / "data" / "conversation_bench_floor.json"


@pytest.fixture(scope="module")
def bench(demo_db):
    with demo_db(Settings(_env_file=None)) as (engine, settings):
        snap = conversation_bench.snapshot(engine)
        yield engine, settings, snap, conversation_cases.build(snap)


def test_the_benchmark_has_the_promised_shape(bench):
    _, _, snap, cases = bench
    turns = [t for c in cases for t in c.turns]
    assert len(turns) >= 300
    assert 3 * sum(t.lang == "es" for t in turns) >= len(turns)
    chains = [c for c in cases if c.is_chain]
    assert len(chains) >= 40 and all(len(c.turns) >= 3 for c in chains)
    assert 0.25 <= sum(t.part == "heldout" for t in turns) / len(turns) <= 0.4
    assert {t.template for t in turns} == set(FAMILY)  # every kind, every template asked
    roles = {snap.role(c.asker) for c in cases}
    assert {"MANAGER", "DEVELOPER"} <= roles
    assert len({t.text for t in turns}) >= 300  # distinct questions, not one asked many times


@pytest.fixture(scope="module")
def floor():
    return json.loads(FLOOR.read_text())


@pytest.fixture(scope="module")
def offline(bench, floor):
    engine, settings, snap, cases = bench
    chosen = conversation_cases.sample(cases, floor["sample_turns"])
    return conversation_bench.summarize(conversation_bench.ask(engine, settings, snap, chosen, "offline"))


def test_the_offline_sample_holds_the_floor_and_leaks_nothing(offline, floor):
    assert offline["all"]["questions"] >= 150
    scores = {"all": offline["all"]["score"], **{p: offline["by_part"][p]["score"] for p in ("tuned", "heldout")}}
    below = {k: (scores[k], floor["offline"][k]) for k in scores if scores[k] < floor["offline"][k]}
    assert not below, f"the offline conversation score dropped below the floor (score, floor): {below}"
    assert offline["all"]["leaks"] == 0
    assert offline["all"]["wrong_refusals"] <= floor["offline"]["wrong_refusals_max"], offline["all"]
