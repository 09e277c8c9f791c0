"""Quality gate: the conversation benchmark (app/services/conversation_bench.py), offline, holds its floor.

The demo data is seeded once per session through the real write path (the module asks a copy of it). The
full benchmark must have the promised shape (≥ 300 questions, a third Spanish, ≥ 40 chains of 3+ turns, a held-out third, askers of
each role, every kind of issue 23); a fixed, seeded, stratified sample of it (SAMPLE_TURNS turns, every
stratum at least once) is asked through the offline chat, and its score — overall, on tuned phrasings and
on held-out ones — may not drop below tests/data/conversation_bench_floor.json, nor leak anything; the same
sample asked with the honest loopback LLM must answer as offline does (within HONEST_GAP turns). The full
set, with the loopback LLMs too, is scripts/bench_conversation.py (docs/BENCHMARKS.md).

The floor is main's measured score minus FLOOR_SLACK questions: the demo data's dates move with the day it
is seeded, so "due this week" is a different set on a Monday than on a Friday. Raise it when answers improve.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from app.config import Settings
from app.evals import conversation_cases, conversation_phrasings
from app.evals.conversation_cases import FAMILY
from app.services import conversation_bench

FLOOR = Path(__file__).resolve().parents[1] / "data" / "conversation_bench_floor.json"
HONEST_GAP = 2  # turns: a list the honest model says whole where offline keeps only the items titled for it


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


def test_every_phrasing_is_asked(bench):
    """Each template's every phrasing, tuned and held-out, in each language it has: a phrasing never asked
    is a part of the benchmark that measures nothing. Compared by the template and the words around the slots."""
    _, _, _, cases = bench
    asked = {(t.template, t.lang, t.part): set() for c in cases for t in c.turns}
    for c in cases:
        for t in c.turns:
            asked[(t.template, t.lang, t.part)].add(t.text)
    never = []
    for template in FAMILY:
        for lang in ("en", "es"):
            for text, part in conversation_cases.phrasings(template, lang):
                fixed = [w for w in re.split(r"\{[a-z]+\}", text) if w.strip()]
                if not any(all(w in q for w in fixed) for q in asked.get((template, lang, part), ())):
                    never.append((template, lang, part))
    assert not never, never


@pytest.fixture(scope="module")
def floor():
    return json.loads(FLOOR.read_text())


@pytest.fixture(scope="module")
def sample(bench, floor):
    return conversation_cases.sample(bench[3], floor["sample_turns"])


@pytest.fixture(scope="module")
def offline_turns(bench, sample):
    engine, settings, snap, _ = bench
    return conversation_bench.ask(engine, settings, snap, sample, "offline")


@pytest.fixture(scope="module")
def offline(offline_turns):
    return conversation_bench.summarize(offline_turns)


def test_the_offline_sample_holds_the_floor_and_leaks_nothing(offline, floor):
    assert offline["all"]["questions"] >= 150
    scores = {"all": offline["all"]["score"], **{p: offline["by_part"][p]["score"] for p in ("tuned", "heldout")}}
    below = {k: (scores[k], floor["offline"][k]) for k in scores if scores[k] < floor["offline"][k]}
    assert not below, f"the offline conversation score dropped below the floor (score, floor): {below}"
    assert offline["all"]["leaks"] == 0
    assert offline["all"]["wrong_refusals"] <= floor["offline"]["wrong_refusals_max"], offline["all"]



def test_an_honest_model_on_the_sample_scores_as_offline_does(bench, sample, offline_turns):
    """The LLM path's prompt (app/rag/prompting.py): a model that says what its context says — the honest
    loopback server, over real HTTP — answers as the offline chat does, because the context holds only what
    may be said to the asker and only the chunks the offline relevance gate passes. At most HONEST_GAP of
    the sample's turns right offline may go wrong with it, and it refuses none that offline answers."""
    engine, settings, snap, _ = bench
    honest = conversation_bench.ask(engine, settings, snap, sample, "honest")
    rows = {(r["id"], r["turn"]): r for r in (j.row() for j in honest)}
    offline_rows = {(r["id"], r["turn"]): r for r in (j.row() for j in offline_turns)}
    assert rows.keys() == offline_rows.keys() and all(r["llm_used"] or r["llm_error"] is None for r in rows.values())
    lost = [r for key, r in rows.items() if r["outcome"] == "wrong" and offline_rows[key]["outcome"] != "wrong"]
    assert len(lost) <= HONEST_GAP, [(r["question"], r["why"]) for r in lost]
    assert not any(r["leak"] for r in rows.values())
    assert not any(r["wrong_refusal"] and not offline_rows[key]["wrong_refusal"] for key, r in rows.items())


def test_phrasings_invented_later_hold_their_floor_and_leak_nothing(bench, floor):
    """The same kinds of question in words nobody tuned the first phrasings for (conversation_phrasings.VARIANTS:
    no "tasks", a bare number, informal Spanish without accents): a rule that knows one wording only fails here."""
    engine, settings, snap, _ = bench
    own = floor["variants"]
    cases = conversation_cases.sample(conversation_cases.build(snap, conversation_phrasings.VARIANTS), own["sample_turns"])
    figures = conversation_bench.summarize(conversation_bench.ask(engine, settings, snap, cases, "offline"))["all"]
    assert figures["questions"] >= own["sample_turns"]
    assert figures["score"] >= own["offline"]["all"], figures
    assert figures["leaks"] == 0
    assert figures["wrong_refusals"] <= own["offline"]["wrong_refusals_max"], figures


@pytest.mark.parametrize("half", ["tracker_tune", "tracker_check"])
def test_tracker_questions_in_a_third_batch_of_words_hold_their_floor(bench, floor, half):
    """The tracker families (work, comments and their follow-ups) in a third batch of wordings
    (conversation_phrasings.TRACKER_TUNE / TRACKER_CHECK: Latin-American and Spain usage, clitics, a person in
    lower case or in full, statuses and weeks in other words), judged on the batch's own turns (a chain's other
    turns keep their phrasings). The check half was only measured, never tuned on."""
    engine, settings, snap, _ = bench
    own = floor["tracker"][half]
    source = conversation_phrasings.BATCHES[half]
    judged = conversation_bench.ask(engine, settings, snap, conversation_cases.build(snap, source), "offline")
    figures = conversation_bench.summarize([j for j in judged if j.template in source])["all"]
    assert figures["questions"] >= own["measured"]["questions"]
    assert figures["score"] >= own["offline"]["own"], figures
    assert figures["leaks"] == 0
    assert figures["wrong_refusals"] <= own["offline"]["wrong_refusals_max"], figures


def test_the_document_check_set_holds_its_floor_on_both_halves_and_leaks_nothing(bench, floor):
    """Questions about the documents in a colleague's words, questions nothing answers and summaries in new
    words (conversation_phrasings.DOC_FACTS_CHECK, NOWHERE_CHECK, DOC_SUMMARY_CHECK), all of them: a gate that
    knows the documents' words and not their meaning fails here. Each half holds its floor — the one the
    answers were tuned on and the one nobody tuned on."""
    engine, settings, snap, _ = bench
    own = floor["check"]
    judged = conversation_bench.ask(engine, settings, snap, conversation_cases.build_check(snap), "offline")
    figures = conversation_bench.summarize(judged)
    assert figures["all"]["questions"] >= 140 and figures["all"]["leaks"] == 0
    for part in conversation_cases.CHECK_PARTS:
        assert figures["by_part"][part]["score"] >= own["offline"][part], (part, figures["by_part"][part])
    nowhere = figures["by_family"]["nowhere"]
    assert nowhere["right_refusal"] + nowhere["right"] >= nowhere["questions"] - own["offline"]["nowhere_wrong_max"]
