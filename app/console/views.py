"""What the console's templates are given: rows shaped for display, read through the services."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.console import charts
from app.domain import Caller, ChunkRef, Conversation, Message
from app.engines.base import Engine
from app.entities import EMPLOYEES, PROJECTS
from app.rag import refs
from app.services import conversations
from app.services.records import iter_records


def employees(engine: Engine) -> list[dict[str, Any]]:
    """Every employee as the pickers list them: "Ana Garcia (developer, #2)"."""
    return [{"id": row["employee_id"], "label": _label(row)} for row in iter_records(engine, EMPLOYEES)]


def employee_label(engine: Engine, employee_id: int) -> str:
    row = engine.get(EMPLOYEES, employee_id)
    return _label(row) if row else f"employee #{employee_id}"


def _label(row: dict[str, Any]) -> str:
    name = " ".join(p for p in (row["first_name"], row["last_name"]) if p)
    return f"{name} ({str(row['role']).lower()}, #{row['employee_id']})"


def scopes(engine: Engine) -> list[dict[str, str]]:
    """The retrieval scopes a picker offers, worded as the API words a conversation's scope
    (conversations.effective): all, none, then each project by its name."""
    return [{"value": "all", "label": conversations.ALL_LABEL}, {"value": "none", "label": conversations.NONE_LABEL},
            *({"value": str(row["project_id"]), "label": str(row["name"])} for row in iter_records(engine, PROJECTS))]


def conversation(engine: Engine, conv: Conversation) -> dict[str, Any]:
    scope = conversations.effective(engine, conv.rag_scope)
    return {"id": conv.conversation_id, "title": conv.title or f"conversation #{conv.conversation_id}",
            "scope": conv.rag_scope, "scope_label": scope.label, "pinned": conv.pinned_project_id is not None,
            "created_at": conv.created_at, "updated_at": conv.updated_at, "employee_id": conv.employee_id}


@dataclass(frozen=True)
class Turn:
    """One question and its answer, with what the answer rested on (MESSAGES: scope, retrieved chunks, focus,
    llm_error) and whether it is withdrawn (it rests on something the employee may no longer see)."""

    question: Message | None
    answer: Message | None
    withdrawn: bool = False
    hidden: bool = False  # withdrawn, in a view as the employee: neither its text nor its grounds are shown
    scope_label: str | None = None  # the scope retrieval applied in this turn
    retrieved: tuple[tuple[str, ChunkRef], ...] = ()  # (anchor, chunk) the answer was given, best first


def turns(engine: Engine, caller: Caller, messages: list[Message], as_employee: bool) -> list[Turn]:
    """Messages (oldest first) paired as question and answer; a lone message (a page cut) stands alone.

    ``as_employee`` is the playground's view: a withdrawn answer is shown as withdrawn, never its text nor
    what it rested on (as the API's conversation read shows it). The operator's Conversations page shows
    it, marked, since "why did the bot tell them that?" is the question it is there for.
    """
    gone = conversations.withdrawn(engine, caller, messages)
    labels: dict[str, str] = {}

    def label(stored: str | None) -> str | None:
        if stored is not None and stored not in labels:
            labels[stored] = conversations.effective(engine, stored).label
        return labels.get(stored) if stored is not None else None

    def answered(question: Message | None, answer: Message) -> Turn:
        withdrawn = answer.message_id in gone
        return Turn(question, answer, withdrawn, withdrawn and as_employee, label(answer.facts.rag_scope),
                    tuple((refs.anchor((t, i)), (t, i, x)) for t, i, x in answer.facts.retrieved))

    out: list[Turn] = []
    for message in messages:
        if message.role == "assistant" and out and out[-1].answer is None and out[-1].question is not None:
            out[-1] = answered(out[-1].question, message)
        elif message.role == "assistant":
            out.append(answered(None, message))
        else:
            out.append(Turn(message, None))
    return out


# --- quality (the JSON `ragctl eval` keeps: app/services/eval_results.py) ------------------------------

MODE_SERIES = {"vector": "series-1", "lexical": "series-2", "hybrid": "series-3"}


def golden_view(run: dict[str, Any] | None) -> dict[str, Any] | None:
    """The golden set's classes (all, by role, language, role and language, kind) x modes: recall@5 / MRR@10."""
    if run is None or "error" in run:
        return run
    results = run["results"]
    modes = list(results["modes"])
    first = results["modes"][modes[0]]
    classes = [("all", "all")] + [(split, key) for split in ("by_role", "by_lang", "by_role_lang", "by_kind")
                                  for key in first.get(split, {})]

    def cell(mode: str, split: str, key: str) -> dict[str, Any] | None:
        figures = results["modes"][mode]
        return figures["all"] if split == "all" else figures.get(split, {}).get(key)

    rows = [{"label": key if split == "all" else f"{split.removeprefix('by_').replace('_', ' & ')}: {key}",
             "cells": [cell(m, split, key) for m in modes]} for split, key in classes]
    charted = [r for (split, _), r in zip(classes, rows) if split in ("all", "by_role", "by_lang")]  # the table has all
    chart = charts.grouped_bars("MRR@10 by asker role and language", [r["label"].split(": ")[-1] for r in charted],
                                [(m, MODE_SERIES.get(m, "series-1"), [(r["cells"][i] or {}).get("mrr@10") for r in charted])
                                 for i, m in enumerate(modes)])
    honest = [{"mode": m, **results["modes"][m]["honest"]} for m in modes if "honest" in results["modes"][m]]
    return {"finished_at": run["finished_at"], "source": run["source"], "questions": results["questions"],
            "pairs": results["pairs"], "languages": results.get("languages", {}), "modes": modes, "rows": rows,
            "chart": chart, "honest": honest}


BEIR_COLUMNS = (("ndcg@10", "nDCG@10"), ("recall@10", "R@10"), ("recall@100", "R@100"), ("mrr@10", "MRR@10"))


def beir_view(run: dict[str, Any] | None) -> dict[str, Any] | None:
    """A BEIR collection's rows, one per mode, and nDCG@10 / MRR@10 / R@10 as bars."""
    if run is None or "error" in run:
        return run
    results = run["results"]
    modes = list(results)
    chart = charts.grouped_bars("Retrieval quality by mode", modes, [
        (title, f"series-{i + 1}", [results[m].get(key) for m in modes])
        for i, (key, title) in enumerate((("ndcg@10", "nDCG@10"), ("mrr@10", "MRR@10"), ("recall@10", "R@10")))])
    return {"finished_at": run["finished_at"], "source": run["source"], "results": results, "modes": modes,
            "columns": BEIR_COLUMNS, "first": results[modes[0]] if modes else {}, "chart": chart}
