"""The conversation benchmark (issue 23) on the demo data: ``ragctl eval --conversations``,
scripts/bench_conversation.py and tests/quality/test_conversation_bench.py.

Seeds the demo into a throw-away embedded database as ``ragctl demo`` does (app/services/golden_eval
.demo_engine), reads it back through the engine contract (the Snapshot every truth is computed from),
builds the conversations (app/evals/conversation_cases.py), asks each one turn by turn through the chat
(app/services/chat.py, as every face does, in a new conversation of its asker) and judges every answer
(app/evals/conversation_score.py). Modes: ``offline`` (no LLM: the extractive answers), ``honest`` and
``inventing`` (app/evals/loopback_llm.py, a real HTTP server on 127.0.0.1).
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from app.config import Settings
from app.evals import conversation_cases, conversation_phrasings, edit_cases, edit_truth, loopback_llm
from app.evals.conversation_cases import FAMILY, Case
from app.evals.conversation_score import Verdict, judge
from app.evals.conversation_truth import Snapshot, Truth, truth
from app.services.evaluation import ProgressFactory, SilentProgress

MODES = ("offline", *loopback_llm.MODES)
EDITS = "edits"  # the batch of issue 31 (app/evals/edit_cases.py): chains that edit the last question, every field
ANSWER_CHARS = 600  # of each answer kept in the per-turn results


@dataclass(frozen=True)
class Judged:
    """One turn of one benchmark conversation, asked and judged."""

    cid: str
    turn: int
    asker: str
    role: str
    lang: str
    part: str
    template: str
    family: str
    chain: bool
    truth_kind: str
    verdict: Verdict
    question: str
    answer: str
    llm_used: bool = False
    llm_error: str | None = None

    def row(self) -> dict[str, Any]:
        return {"id": self.cid, "turn": self.turn, "asker": self.asker, "role": self.role, "lang": self.lang,
                "part": self.part, "template": self.template, "family": self.family, "truth": self.truth_kind,
                "outcome": self.verdict.outcome, "leak": self.verdict.leak,
                "wrong_refusal": self.verdict.wrong_refusal, "why": self.verdict.why, "question": self.question,
                "answer": self.answer[:ANSWER_CHARS], "llm_used": self.llm_used, "llm_error": self.llm_error}


def snapshot(engine, today: dt.date | None = None) -> Snapshot:
    """The seeded database's source rows, read through the records service (the engine contract)."""
    from app.entities import COMMENTS, DOCUMENTS, EMPLOYEES, PROJECTS, SPRINTS, TASKS
    from app.services.records import iter_records

    def by_id(entity) -> dict[int, dict]:
        return {row[entity.pk.lower()]: row for row in iter_records(engine, entity)}

    return Snapshot(today or dt.date.today(), by_id(EMPLOYEES), by_id(PROJECTS), by_id(SPRINTS), by_id(TASKS),
                    tuple(iter_records(engine, COMMENTS)), by_id(DOCUMENTS))


def ask(engine, settings: Settings, snap: Snapshot, cases: Sequence[Case], mode: str,
        progress: ProgressFactory | None = None) -> list[Judged]:
    """Every case as one conversation of its asker, in ``mode``; every turn judged as it is answered."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}")
    bar = (progress or (lambda desc, total: SilentProgress()))(f"conversations ({mode})", len(cases))
    offline = settings.model_copy(update={"llm_url": None, "llm_model": None})
    if mode == "offline":
        judged = _converse_all(engine, offline, snap, cases, bar.update)
    else:
        with loopback_llm.LoopbackLLM(mode) as llm:
            online = offline.model_copy(update={"llm_url": llm.url, "llm_model": "loopback"})
            judged = _converse_all(engine, online, snap, cases, bar.update)
    bar.close()
    return judged


def _converse_all(engine, settings: Settings, snap: Snapshot, cases: Sequence[Case],
                  tick: Callable[[int], Any]) -> list[Judged]:
    import anyio
    import httpx

    from app.services import chat
    from app.services.search import resolve_caller

    async def run() -> list[Judged]:
        judged: list[Judged] = []
        async with httpx.AsyncClient() as client:
            for case in cases:
                caller = resolve_caller(engine, employee_id=case.asker)
                hidden = snap.hidden(case.asker)
                conversation, scope, asked = None, None, []
                for ix, turn in enumerate(case.turns):
                    asked.append(turn.text)
                    if turn.template == "scope_project":
                        scope = turn.slot["project"]
                    elif turn.template == "scope_all":
                        scope = None
                    expected = _truth(snap, case.asker, turn.template, turn.slot, scope)
                    prep = chat.prepare(engine, settings, caller, chat.ChatInput(turn.text, conversation))
                    answer = await chat.chat(engine, settings, prep, client)
                    conversation = answer.conversation_id
                    after = (answer.new_scope or answer.scope).value
                    verdict = judge(expected, answer.answer, hidden, after, asked)
                    judged.append(Judged(case.cid, ix, str(snap.employees[case.asker]["first_name"]),
                                         snap.role(case.asker).lower(), turn.lang, turn.part, turn.template,
                                         family(turn.template), len(case.turns) > 1, expected.kind, verdict,
                                         turn.text, answer.answer, answer.llm_used, answer.llm_error))
                tick(1)
        return judged

    return anyio.run(run)


def _truth(snap: Snapshot, asker: int, template: str, slots: dict, scope: int | None) -> Truth:
    """The turn's truth: the edits batch's templates (edit_truth) or the first benchmark's."""
    if template in FAMILY:
        return truth(snap, asker, template, slots, scope)
    return edit_truth.truth(snap, asker, template, slots)


def family(template: str) -> str:
    """The kind a turn is reported under: issue 23's families, or the edits batch's chain or template."""
    return FAMILY.get(template) or edit_cases.family(template)


def summarize(judged: Sequence[Judged]) -> dict[str, Any]:
    """Counts and the score (right + right refusal, over all) overall and split by part, language, kind,
    role, and chain turns vs single questions."""
    splits: dict[str, Callable[[Judged], str]] = {
        "by_part": lambda j: j.part, "by_lang": lambda j: j.lang, "by_family": lambda j: j.family,
        "by_role": lambda j: j.role, "by_shape": lambda j: "chain turns" if j.chain else "single questions",
        "by_part_lang": lambda j: f"{j.part}/{j.lang}",
        "by_step": lambda j: f"turn {j.template.split('/')[1]}" if "/" in j.template else "single",
    }
    return summarize_by(judged, splits)


def summarize_by(judged: Sequence[Any], splits: dict[str, Callable[[Any], str]]) -> dict[str, Any]:
    """The figures of all the judged turns, and of each group of every split (a benchmark's own turns: any type
    with a verdict, llm_used and llm_error)."""
    out: dict[str, Any] = {"all": _figures(judged)}
    for name, key in splits.items():
        groups: dict[str, list[Any]] = defaultdict(list)
        for j in judged:
            groups[key(j)].append(j)
        out[name] = {k: _figures(g) for k, g in sorted(groups.items())}
    return out


def _figures(rows: Sequence[Judged]) -> dict[str, Any]:
    right = sum(j.verdict.outcome == "right" for j in rows)
    refusals = sum(j.verdict.outcome == "right_refusal" for j in rows)
    return {"questions": len(rows), "right": right, "right_refusal": refusals,
            "wrong": len(rows) - right - refusals, "leaks": sum(j.verdict.leak for j in rows),
            "wrong_refusals": sum(j.verdict.wrong_refusal for j in rows),
            "llm_used": sum(j.llm_used for j in rows), "llm_errors": sum(j.llm_error is not None for j in rows),
            "score": round((right + refusals) / len(rows), 4) if rows else 0.0}


def evaluate_conversations(modes: Sequence[str] = ("offline",), embedder: Any | None = None,
                           progress: ProgressFactory | None = None, base: Settings | None = None,
                           min_turns: int | None = None, batch: str | None = None,
                           check: bool = False) -> dict[str, Any]:
    """Seed, build, ask in every mode, judge → {"conversations", "questions", ..., "modes": {mode: figures,
    "turns": every judged turn}}. ``min_turns``: only the stratified sample (conversation_cases.sample);
    ``batch``: the conversations reworded by the batch of phrasings of that name instead
    (conversation_phrasings.BATCHES: "variants" is VARIANTS), or EDITS: the edits batch (edit_cases.build_edits,
    its own phrasings, a held-out third among them); ``check``: the document check set instead
    (conversation_cases.build_check)."""
    from app.services.golden_eval import demo_engine

    with demo_engine(base, embedder) as (engine, settings):
        snap = snapshot(engine)
        source = conversation_phrasings.BATCHES[batch] if batch and batch != EDITS else None
        if batch == EDITS:
            cases = edit_cases.build_edits(snap)
        else:
            cases = conversation_cases.build_check(snap) if check else conversation_cases.build(snap, source)
        if min_turns is not None:
            cases = conversation_cases.sample(cases, min_turns)
        turns = [t for c in cases for t in c.turns]
        result: dict[str, Any] = {
            "conversations": len(cases), "questions": len(turns),
            "chains": sum(len(c.turns) > 1 for c in cases),
            "languages": {lang: sum(t.lang == lang for t in turns) for lang in ("en", "es")},
            "parts": {part: sum(t.part == part for t in turns)
                      for part in (conversation_cases.CHECK_PARTS if check else conversation_cases.PARTS)},
            "search_mode": settings.search_mode, "modes": {},
        }
        if batch == EDITS:
            result["left_out"] = edit_cases.left_out(snap)
        for mode in modes:
            judged = ask(engine, settings, snap, cases, mode, progress)
            result["modes"][mode] = {**summarize(judged), "turns": [j.row() for j in judged]}
    return result
