"""Quality gate: the edits batch of the conversation benchmark (issue 31; app/evals/edit_cases.py) has its promised
shape, and a small seeded sample of its chains that edit the last question, asked offline, holds its floor.

The shape: ≥ 40 chains over the five askers (a manager and developers), a third Spanish or more, a held-out share of
about a third, every phrasing (tuned and held-out) asked and holding exactly its turn's slots. The sample
(edit_cases.sample_chains: one chain of each chain template, seeded, languages and parts alternating; about 30
turns) may not score below tests/data/conversation_edits_floor.json: main's measured score
minus 2 questions (the demo's dates move with the day it is seeded). Raise it when the answers improve. The whole
batch, with the loopback LLMs too, is scripts/bench_conversation.py --batch edits (docs/BENCHMARKS.md).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from app.config import Settings
from app.evals import conversation_cases, edit_cases
from app.services import conversation_bench

FLOOR = Path(__file__).resolve().parents[1] / "data" / "conversation_edits_floor.json"


@pytest.fixture(scope="module")
def bench(demo_db):
    with demo_db(Settings(_env_file=None)) as (engine, settings):
        snap = conversation_bench.snapshot(engine)
        yield engine, settings, snap, edit_cases.build_edits(snap)


@pytest.fixture(scope="module")
def floor():
    return json.loads(FLOOR.read_text())


def test_every_phrasing_holds_exactly_its_slots():
    assert edit_cases.slot_errors() == []


def test_the_edits_batch_has_the_promised_shape(bench):
    _, _, snap, cases = bench
    turns = [t for c in cases for t in c.turns]
    chains = [c for c in cases if len(c.turns) > 1]
    assert len(chains) >= 40
    assert {snap.employees[c.asker]["first_name"] for c in chains} == set(conversation_cases.ASKERS)
    assert {"MANAGER", "DEVELOPER"} <= {snap.role(c.asker) for c in chains}
    assert 3 * sum(t.lang == "es" for t in turns) >= len(turns)
    assert 0.25 <= sum(t.part == "heldout" for t in turns) / len(turns) <= 0.45
    asked = {c.turns[0].template.split("/")[0] for c in chains}
    assert {"e_person_status", "e_person_work", "e_sprint", "e_project_overdue", "e_urgent", "e_status_count"} <= asked
    # a chain's second turn asks about another person, project or sprint than its first, or narrows it
    moved = [c for c in chains if c.turns[0].template.startswith(("e_person_status", "e_project_overdue"))]
    assert all(c.turns[1].slot.get("person2", c.turns[1].slot.get("project2")) not in
               (c.turns[0].slot.get("person"), c.turns[0].slot.get("project")) for c in moved)


def test_every_phrasing_is_asked(bench):
    """Each chain variant and single phrasing of the batch, tuned and held-out, is asked at least once."""
    _, _, _, cases = bench
    asked = {(c.turns[0].template.split("/")[0], c.turns[0].part, c.turns[0].lang) for c in cases}
    texts = {t.text for c in cases for t in c.turns}
    built = {c.turns[0].template.split("/")[0] for c in cases}
    never = []
    for part, module in edit_cases.SOURCES.items():
        for key, by in [*module.CHAINS.items(), *module.SINGLE.items()]:
            if key not in built:
                continue
            for lang, phrasings in by.items():
                for p in phrasings:
                    first = p[0] if isinstance(p, tuple) else p
                    fixed = [w for w in re.split(r"\{[a-z0-9]+\}", first) if w.strip()]
                    if (key, part, lang) not in asked or not any(all(w in q for w in fixed) for q in texts):
                        never.append((key, part, lang, first))
    assert not never, never


def test_a_sample_of_the_edit_chains_holds_its_floor_offline(bench, floor):
    engine, settings, snap, cases = bench
    sample = edit_cases.sample_chains(cases)
    judged = conversation_bench.ask(engine, settings, snap, sample, "offline")
    figures = conversation_bench.summarize(judged)["all"]
    assert figures["questions"] >= floor["sample_turns"]
    assert figures["score"] >= floor["offline"]["all"], figures
    assert figures["leaks"] == 0
    assert figures["wrong_refusals"] <= floor["offline"]["wrong_refusals_max"], figures
