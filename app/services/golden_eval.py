"""The project golden set (app/rag/golden.py) scored on the demo data, per mode, asker role and language.

Seeds the demo data into a throw-away embedded database through the production write path (as
``ragctl demo`` does: CRUD → triggers → queue → worker → chunks), asks every question as each asker it
names in each search mode, and scores entity-level rankings with app/rag/retrieval_metrics (the same
metrics as the BEIR evaluation). A pair (question, asker) that expects nothing is not in the recall
averages; it is where the honest-answer rule must say "I don't know" (chat: app/rag/extractive.relevant
over the top ``settings.top_k`` hits, threshold ``settings.answer_max_distance``).

The conversation kinds (chain, lookup, structured, lexical: app/rag/golden.CHAT_KINDS) are asked through
the chat itself, offline, each asker in a conversation of their own, every turn scored: its ranking is
what the answer cites, then what it was given (the entities the question named, then the retrieved
chunks); it is "answered" when it cites anything.

Used by ``ragctl eval --golden``, tests/quality and scripts/calibrate_answer_threshold.py.
"""

from __future__ import annotations

import contextlib
import tempfile
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.config import Settings
from app.domain import Caller, Scope, SearchMode
from app.rag.golden import CHAT_KINDS, Anchor, GoldenQuestion, parse_golden
from app.rag.retrieval_metrics import document_ranking, mrr_at_k, recall_at_k
from app.services.evaluation import EvaluationError, ProgressFactory, read_lines, SilentProgress

RECALL_K = 5
MRR_K = 10
DEPTH = 20  # chunks asked per question: demo entities are one chunk each, so ≥ MRR_K entities
NO_HIT = 2.0  # the largest cosine distance: "no hit shares a topic word with the question"


@dataclass(frozen=True)
class Asked:
    """One question asked by one asker in one mode."""

    question: GoldenQuestion
    asker: str
    role: str  # from EMPLOYEES: "manager", "developer", "admin"
    mode: str
    ranked: list[Anchor]
    expected: tuple[Anchor, ...]
    min_on_topic: float  # what the answer gate sees: app.rag.extractive.gate_distance of the chat's top-k
    answered: bool  # the chat's rule: some top-k hit is evidence (chat kinds: the answer cites something)
    turn: int = 0  # chain: which turn (0 = the first question)
    answer: str = ""  # chat kinds: the answer text

    def metric(self, name: str) -> float:
        relevant = {anchor: 1 for anchor in self.expected}
        return recall_at_k(self.ranked, relevant, RECALL_K) if name == f"recall@{RECALL_K}" \
            else mrr_at_k(self.ranked, relevant, MRR_K)


def load_golden(path: Path) -> list[GoldenQuestion]:
    return parse_golden(read_lines(path), str(path))


@contextlib.contextmanager
def demo_engine(base: Settings | None = None, embedder: Any | None = None) -> Iterator[tuple[Any, Settings]]:
    """A temporary SQLite database with the demo data seeded and indexed, as ``ragctl demo`` does."""
    from app import demo_data
    from app.engines.sqlite.engine import SQLiteEngine
    from app.services.demo import seed
    from app.worker import Worker

    with tempfile.TemporaryDirectory(prefix="ragctl-golden-") as tmp:
        settings = (base or Settings()).model_copy(update={"database_url": f"sqlite:///{tmp}/golden.db"})
        engine = SQLiteEngine.open(settings, embedder=embedder)
        try:
            engine.migrate()
            seed(engine, demo_data.build())
            done = Worker(engine, settings).run_once()
            if done.failed:
                raise EvaluationError(f"indexing the demo data failed: {done.errors[-1]}")
            yield engine, settings
        finally:
            engine.close()


def demo_callers(engine, askers: set[str]) -> dict[str, Caller]:
    """Asker key (first name, lower case) → the caller, role read from EMPLOYEES like every search."""
    from app.entities import EMPLOYEES
    from app.services.records import iter_records
    from app.services.search import resolve_caller

    ids = {row["first_name"].lower(): row["employee_id"] for row in iter_records(engine, EMPLOYEES)}
    unknown = sorted(askers - ids.keys())
    if unknown:
        raise EvaluationError(f"asker(s) {', '.join(unknown)} are not demo employees ({', '.join(sorted(ids))})")
    return {key: resolve_caller(engine, employee_id=ids[key]) for key in askers}


def ask_all(engine, settings: Settings, questions: Sequence[GoldenQuestion], modes: Sequence[SearchMode],
            progress: ProgressFactory | None = None) -> list[Asked]:
    """Every (question, asker) in every mode. A search question is embedded once and searched through the
    engine contract, as app/services/search does: embedding is the costly part, the rest is milliseconds.
    A conversation question goes through the chat (app/services/chat.py), turn by turn."""
    callers = demo_callers(engine, {asker for q in questions for asker in q.expect})
    bar = (progress or (lambda desc, total: SilentProgress()))("questions", len(questions))
    asked: list[Asked] = []
    for q in questions:
        if q.kind in CHAT_KINDS:
            for mode in modes:
                for asker, expected in q.expect.items():
                    asked.extend(_converse(engine, settings, q, asker, callers[asker], expected, mode))
            bar.update(1)
            continue
        vector = engine.embed_query(q.question)
        for mode in modes:
            for asker, expected in q.expect.items():
                asked.append(_ask(engine, settings, q, vector, asker, callers[asker], expected, mode))
        bar.update(1)
    bar.close()
    return asked


def _converse(engine, settings: Settings, q: GoldenQuestion, asker: str, caller: Caller,
              expected: tuple[Anchor, ...], mode: SearchMode) -> list[Asked]:
    """The question and its follow-ups in one new conversation, offline, in ``mode``."""
    import anyio
    import httpx

    from app.rag.refs import ref_of
    from app.services import chat

    offline = settings.model_copy(update={"search_mode": mode, "llm_url": None, "llm_model": None})

    async def talk() -> list[Asked]:
        rows, conversation = [], None
        async with httpx.AsyncClient() as unused:  # no LLM: the extractive answer
            for turn, text in enumerate(q.turns):
                prep = chat.prepare(engine, offline, caller, chat.ChatInput(text, conversation))
                answer = await chat.chat(engine, offline, prep, unused)
                conversation = answer.conversation_id
                cited = [r for r in (ref_of(a) for a in answer.citations) if r is not None]
                given = [(h.source_type, h.source_id) for h in [*answer.entities, *answer.search.result.hits]]
                rows.append(Asked(q, asker, caller.role.value.lower(), mode, document_ranking([*cited, *given]),
                                  expected, NO_HIT, bool(cited), turn, answer.answer))
        return rows

    return anyio.run(talk)


def _ask(engine, settings: Settings, q: GoldenQuestion, vector, asker: str, caller: Caller,
         expected: tuple[Anchor, ...], mode: SearchMode) -> Asked:
    from app.rag.extractive import gate_distance

    deep = engine.search(vector, q.question, caller, DEPTH, Scope(), mode).hits
    ranked = document_ranking((h.source_type, h.source_id) for h in deep)
    # What the chat answers from: its own top-k (hybrid's candidate depth grows with k, so not a prefix).
    top = engine.search(vector, q.question, caller, settings.top_k, Scope(), mode).hits
    best = gate_distance(q.question, top)
    return Asked(q, asker, caller.role.value.lower(), mode, ranked, expected, best,
                 best <= settings.answer_max_distance)


def summarize(asked: Sequence[Asked], threshold: float) -> dict[str, Any]:
    """Per mode: recall@5 / MRR@10 overall, by role, by language, by role × language, by kind; and the
    honest-answer counts (pairs with an expected anchor answered; pairs expecting nothing answered)."""
    result: dict[str, Any] = {}
    for mode in dict.fromkeys(a.mode for a in asked):
        rows = [a for a in asked if a.mode == mode]
        scored = [a for a in rows if a.expected]
        splits = {"all": lambda a: "all", "by_role": lambda a: a.role, "by_lang": lambda a: a.question.lang,
                  "by_role_lang": lambda a: f"{a.role}/{a.question.lang}", "by_kind": lambda a: a.question.kind}
        entry: dict[str, Any] = {name: _grouped(scored, key) for name, key in splits.items()}
        entry["all"] = entry["all"]["all"]
        entry["honest"] = _honest(rows, threshold)
        result[mode] = entry
    return result


def _grouped(rows: Sequence[Asked], key) -> dict[str, dict[str, float | int]]:
    groups: dict[str, list[Asked]] = defaultdict(list)
    for row in rows:
        groups[key(row)].append(row)
    return {name: {f"recall@{RECALL_K}": _mean(g, f"recall@{RECALL_K}"), f"mrr@{MRR_K}": _mean(g, f"mrr@{MRR_K}"),
                   "pairs": len(g)} for name, g in sorted(groups.items())}


def _mean(rows: Sequence[Asked], metric: str) -> float:
    return round(sum(a.metric(metric) for a in rows) / len(rows), 4)


def _honest(rows: Sequence[Asked], threshold: float) -> dict[str, Any]:
    expecting = [a for a in rows if a.expected]
    nothing = [a for a in rows if not a.expected]
    unanswerable = [a for a in rows if a.question.kind == "unanswerable"]
    return {"threshold": threshold,
            "expecting_pairs": len(expecting), "expecting_answered": sum(a.answered for a in expecting),
            "nothing_visible_pairs": len(nothing), "nothing_visible_answered": sum(a.answered for a in nothing),
            "unanswerable_pairs": len(unanswerable),
            "unanswerable_answered": sum(a.answered for a in unanswerable)}


def evaluate_golden(questions: Sequence[GoldenQuestion], modes: Sequence[SearchMode], embedder: Any | None = None,
                    progress: ProgressFactory | None = None, base: Settings | None = None) -> dict[str, Any]:
    """Seed, ask, score → {"questions", "pairs", "modes": {mode: figures}}."""
    with demo_engine(base, embedder) as (engine, settings):
        asked = ask_all(engine, settings, questions, modes, progress)
    pairs = sum(len(q.expect) for q in questions)
    return {"questions": len(questions), "pairs": pairs,
            "languages": {lang: sum(q.lang == lang for q in questions) for lang in sorted({q.lang for q in questions})},
            "kinds": {kind: sum(q.kind == kind for q in questions) for kind in sorted({q.kind for q in questions})},
            "modes": summarize(asked, settings.answer_max_distance)}
