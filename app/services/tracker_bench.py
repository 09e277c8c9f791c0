"""The tracker benchmark (issue 31): answers measured on data shaped like a real Jira.
scripts/bench_tracker.py and tests/quality/test_tracker_bench.py.

Generates the Jira-shaped export (app/evals/jira_shaped.py) into a temporary folder, imports it into a fresh
SQLite database with the functions ``ragctl import jira`` runs (read_export → issue_of → import_issues, then
the worker's drain), makes the manager of the benchmark a MANAGER through the records service (as an operator
would over the API: the import makes everyone a developer), and asks every case (app/evals/tracker_cases.py)
through the chat, one conversation per case, with the chat's "today" set to the export's. Each answer is judged
against a truth computed from the raw JSON (app/evals/jira_truth.py, app/evals/tracker_score.py). Modes:
``offline``, ``honest`` and ``inventing`` (app/evals/loopback_llm.py).
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.config import Settings
from app.evals import jira_shaped, loopback_llm, tracker_cases
from app.evals import jira_truth as jt
from app.evals.conversation_score import Verdict
from app.evals.tracker_cases import Case
from app.evals.tracker_score import judge_tracker
from app.services.conversation_bench import summarize_by
from app.services.evaluation import EvaluationError, ProgressFactory, SilentProgress

MODES = ("offline", *loopback_llm.MODES)
ANSWER_CHARS = 600


@dataclass(frozen=True)
class Judged:
    cid: str
    turn: int
    asker: str
    role: str
    lang: str
    part: str
    template: str
    kind: str
    chain: bool
    truth_kind: str
    verdict: Verdict
    question: str
    answer: str
    llm_used: bool = False
    llm_error: str | None = None

    def row(self) -> dict[str, Any]:
        return {"id": self.cid, "turn": self.turn, "asker": self.asker, "role": self.role, "lang": self.lang,
                "part": self.part, "template": self.template, "kind": self.kind, "chain": self.chain,
                "truth": self.truth_kind, "outcome": self.verdict.outcome, "leak": self.verdict.leak,
                "wrong_refusal": self.verdict.wrong_refusal, "why": self.verdict.why, "question": self.question,
                "answer": self.answer[:ANSWER_CHARS], "llm_used": self.llm_used, "llm_error": self.llm_error}


@dataclass
class Imported:
    engine: Any
    settings: Settings
    tracker: jt.Tracker
    employees: dict[str, int]  # person id in the export -> EMPLOYEE_ID
    existing: frozenset[str]  # every anchor of the database (one not here is invented)
    counts: Any


def import_export(engine, settings: Settings, folder: Path, index: bool = True):
    """What ``ragctl import jira FOLDER`` does (app/cli/sources.import_jira: the same calls in the same order;
    tests/quality/test_tracker_bench.py checks both write the same rows), then the worker's drain."""
    from app.sources import jira
    from app.sources.mapping import read_people_map
    from app.sources.pipeline import import_issues
    from app.worker import Worker

    export = jira.read_export(folder)
    site = next((i["self"].split("/rest/api/")[0] for i in export.issues if "/rest/api/" in str(i.get("self"))),
                "files")
    issues = [jira.issue_of(raw, story_points_field=settings.jira_story_points_field or None,
                            sprint_field=settings.jira_sprint_field, projects=export.projects)
              for raw in sorted(export.issues, key=jira.issue_order)]
    counts = import_issues(engine, f"jira:{site}", issues, roles=read_people_map(settings.sources_people_file))
    if not index:
        return counts
    done = Worker(engine, settings).run_once()
    if done.failed:
        raise EvaluationError(f"indexing the imported export failed: {done.errors[-1]}")
    return counts


@contextmanager
def tracker_engine(base: Settings | None = None, embedder: Any | None = None,
                   export: jira_shaped.Export | None = None) -> Iterator[Imported]:
    """A temporary SQLite database holding the generated export, imported and indexed; the benchmark's
    manager promoted to MANAGER."""
    from app.engines.sqlite.engine import SQLiteEngine
    from app.entities import EMPLOYEES, PROJECTS, SPRINTS, TASKS
    from app.services.records import iter_records, update_record

    export = export or jira_shaped.build()
    with tempfile.TemporaryDirectory(prefix="ragctl-tracker-") as tmp:
        folder = Path(tmp) / "export"
        folder.mkdir()
        for name, value in jira_shaped.pages(export).items():
            (folder / name).write_text(json.dumps(value), encoding="utf-8")
        settings = (base or Settings()).model_copy(update={"database_url": f"sqlite:///{tmp}/tracker.db"})
        engine = SQLiteEngine.open(settings, embedder=embedder)
        try:
            engine.migrate()
            counts = import_export(engine, settings, folder)
            ids = {str(t["external_key"]): int(t["task_id"]) for t in iter_records(engine, TASKS)}
            people = {str(e["external_id"]): int(e["employee_id"]) for e in iter_records(engine, EMPLOYEES)
                      if e.get("external_id")}
            tracker = jt.Tracker(export.today, export.issues, export.people, ids, {})
            manager = tracker_cases.askers(tracker)[0]
            update_record(engine, EMPLOYEES, people[manager], {"role": "MANAGER"})
            tracker = jt.Tracker(export.today, export.issues, export.people, ids, {manager: "MANAGER"})
            existing = frozenset([*(f"[TASK #{i}]" for i in ids.values()),
                                  *(f"[SPRINT #{s['sprint_id']}]" for s in iter_records(engine, SPRINTS)),
                                  *(f"[PROJECT #{p['project_id']}]" for p in iter_records(engine, PROJECTS))])
            yield Imported(engine, settings, tracker, people, existing, counts)
        finally:
            engine.close()


def ask(imp: Imported, cases: Sequence[Case], mode: str, progress: ProgressFactory | None = None) -> list[Judged]:
    """Every case as one conversation of its asker, in ``mode``; every turn judged as it is answered."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}")
    bar = (progress or (lambda desc, total: SilentProgress()))(f"tracker ({mode})", len(cases))
    offline = imp.settings.model_copy(update={"llm_url": None, "llm_model": None})
    if mode == "offline":
        judged = _converse_all(imp, offline, cases, bar.update)
    else:
        with loopback_llm.LoopbackLLM(mode) as llm:
            online = offline.model_copy(update={"llm_url": llm.url, "llm_model": "loopback"})
            judged = _converse_all(imp, online, cases, bar.update)
    bar.close()
    return judged


def _converse_all(imp: Imported, settings: Settings, cases: Sequence[Case], tick: Callable[[int], Any]) -> list[Judged]:
    import anyio
    import httpx

    from app.services import chat
    from app.services.search import resolve_caller

    tr = imp.tracker

    async def run() -> list[Judged]:
        judged: list[Judged] = []
        async with httpx.AsyncClient() as client:
            for case in cases:
                caller = resolve_caller(imp.engine, employee_id=imp.employees[case.asker])
                hidden = tr.hidden(case.asker, imp.existing)
                role = "manager" if tr.is_manager(case.asker) else "developer"
                conversation, asked = None, []
                for turn in case.turns:
                    asked.append(turn.text)
                    expected = tracker_cases.truth_of(tr, case.asker, turn)
                    prep = chat.prepare(imp.engine, settings, caller, chat.ChatInput(turn.text, conversation))
                    prep.state.today = tr.today  # the export's fixed "today"
                    answer = await chat.chat(imp.engine, settings, prep, client)
                    conversation = answer.conversation_id
                    verdict = judge_tracker(expected, answer.answer, hidden, asked)
                    judged.append(Judged(case.cid, turn.step, tr.name(case.asker), role, turn.lang, turn.part,
                                         turn.template, turn.kind, case.is_chain, expected.kind, verdict, turn.text,
                                         answer.answer, answer.llm_used, answer.llm_error))
                tick(1)
        return judged

    return anyio.run(run)


def summarize(judged: Sequence[Judged]) -> dict[str, Any]:
    """Counts and the score (right + right refusal, over all) overall and split by part, language, kind,
    template, role, and chain turns vs single questions."""
    splits: dict[str, Callable[[Judged], str]] = {
        "by_part": lambda j: j.part, "by_lang": lambda j: j.lang, "by_kind": lambda j: j.kind,
        "by_template": lambda j: j.template, "by_role": lambda j: j.role,
        "by_shape": lambda j: "chain turns" if j.chain else "single questions",
        "by_part_lang": lambda j: f"{j.part}/{j.lang}",
    }
    return summarize_by(judged, splits)


def sample(cases: Sequence[Case], askers: Sequence[str], chains: int = 6) -> list[Case]:
    """A small fixed sample: one single question per template, its asker rotating over ``askers`` (the
    manager, then the developers), held-out for every third template (where there is one) and Spanish for
    every other third; and ``chains`` chains across parts and languages."""
    picked: list[Case] = []
    for k, template in enumerate(tracker_cases.KIND):
        want = ("heldout" if k % 3 == 0 else "tuned", "es" if k % 3 == 1 else "en", askers[(k + k // 3) % len(askers)])
        picked.append(_best([c for c in cases if not c.is_chain and c.turns[0].template == template], want))
    strata = [("tuned", "en"), ("heldout", "es"), ("heldout", "en"), ("tuned", "es")]
    names = list(tracker_cases.CHAIN_KINDS)
    for k in range(chains):
        want = (*strata[k % len(strata)], askers[k % len(askers)])
        picked.append(_best([c for c in cases if c.chain == names[(3 * k) % len(names)]], want))
    return picked


def _best(cases: Sequence[Case], want: tuple[str, str, str]) -> Case:
    """The first case matching (part, language, asker), else (part, language), else the part, else any."""
    key = lambda c: (c.turns[0].part, c.turns[0].lang, c.asker)  # noqa: E731
    for size in (3, 2, 1, 0):
        found = [c for c in cases if key(c)[:size] == want[:size]]
        if found:
            return found[0]
    raise ValueError("no case to sample")


def evaluate_tracker(modes: Sequence[str] = ("offline",), embedder: Any | None = None,
                     progress: ProgressFactory | None = None, base: Settings | None = None,
                     small: bool = False, scale: float = 1.0) -> dict[str, Any]:
    """Generate, import, build, ask in every mode, judge → {"issues", "conversations", "questions", …,
    "modes": {mode: figures and "turns"}}. ``small``: only the fixed sample (``sample``)."""
    with tracker_engine(base, embedder, jira_shaped.build(scale=scale)) as imp:
        cases = tracker_cases.build(imp.tracker)
        if small:
            cases = sample(cases, tracker_cases.askers(imp.tracker))
        turns = [t for c in cases for t in c.turns]
        result: dict[str, Any] = {
            "issues": len(imp.tracker.issues), "imported": imp.counts.summary(), "today": imp.tracker.today.isoformat(),
            "conversations": len(cases), "questions": len(turns), "chains": sum(c.is_chain for c in cases),
            "languages": {lang: sum(t.lang == lang for t in turns) for lang in ("en", "es")},
            "parts": {part: sum(t.part == part for t in turns) for part in tracker_cases.PARTS},
            "search_mode": imp.settings.search_mode, "modes": {},
        }
        for mode in modes:
            judged = ask(imp, cases, mode, progress)
            result["modes"][mode] = {**summarize(judged), "turns": [j.row() for j in judged]}
    return result
