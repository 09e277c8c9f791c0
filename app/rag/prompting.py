"""Prompt building. Pure: no I/O (the offline answer is in extractive.py, the citation check in citations.py).

Every chunk starts with its anchor (``[TASK #12] Title``, see templates.py); the model is told to
cite those anchors, and citations are only accepted when they name a chunk we actually gave it.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from app.domain import SearchHit
from app.rag.refs import ANCHOR_PREFIX

ANCHOR = re.compile(r"\[(TASK|SPRINT|PROJECT|DOC) #(\d+)\]")

SYSTEM_PROMPT = (
    "You answer questions about a software team's work (tasks, sprints, projects, comments, documents). "
    "Answer ONLY from the context below; if the context does not contain the answer, say you do not know. "
    "After each statement cite the anchor of the chunk it comes from, exactly as written, e.g. [TASK #12] "
    "or [DOC #3]; a statement you cannot cite is removed. Never invent anchors. Answer in the language of the "
    "question, briefly."
)
# Rules of one turn, added to the system prompt when they apply: the context itself holds only what may be
# said to the asker (a computed answer as they would read it, the records), never an instruction.
COMPUTED_RULE = (
    "The context's first block is the answer computed from the records: it is authoritative. Keep every anchor "
    "and number of it; a reply that drops one or states another number is replaced by it."
)
UNCOVERED_RULE = (
    "The context's first line says that nothing the asker may see is about what they ask: say so first, then "
    "give only what is closest, as the closest and not as the answer."
)
BLOCK_SEPARATOR = "\n\n---\n\n"  # between the context's blocks
NO_CONTEXT = "(no context)"  # the context when nothing may be said: the model is to say it does not know
MAX_CONTEXT_CHARS = 12_000  # keeps the prompt well inside small local models' windows
# The earlier turns a prompt carries. A client-kept message list (the OpenAI face) may send turns of
# 100,000 characters each; without a bound every request could become a megabyte prompt paid for by the
# operator. A turn is cut to MAX_TURN_CHARS (a question is at most 2,000; our answers stay well under),
# and the oldest turns go first once the whole would pass MAX_HISTORY_CHARS.
MAX_TURN_CHARS = 4_000
MAX_HISTORY_CHARS = 12_000


@dataclass(frozen=True)
class Asker:
    """Who the prompt says is asking (from EMPLOYEES, never from the request)."""

    name: str
    role: str
    employee_id: int | None = None


def scope_label(project: int | str, project_name: str | None = None) -> str:
    """The human name of a retrieval scope: a project's name, "No project" or "All projects"."""
    if project == "all":
        return "All projects"
    if project == "none":
        return "No project (organisation-wide documents)"
    return project_name or f"Project #{project}"


def system_prompt(asker: Asker | None, today: dt.date | None, scope: str | None, rules: Sequence[str] = ()) -> str:
    """The rules (``rules``: this turn's, e.g. COMPUTED_RULE), then who asks, what day it is and what the
    context was drawn from."""
    facts = []
    if asker is not None:
        who = f"{_one_line(asker.role)}" + (f", employee id {asker.employee_id}" if asker.employee_id else "")
        facts.append(f"The person asking is {_one_line(asker.name)} ({who}); \"I\", \"me\" and \"my\" mean them "
                     f"(find_tasks with mine=true lists their tasks).")
    if today is not None:
        facts.append(f"Today is {today:%A} {today.isoformat()}.")
    if scope is not None:
        facts.append(f"The context was retrieved from: {_one_line(scope)}.")
    return " ".join([SYSTEM_PROMPT, *rules, *facts])


def _one_line(text: str, limit: int = 200) -> str:
    """Data from the database goes into the system prompt as one short line."""
    return " ".join(text.split())[:limit]


def anchor(hit: SearchHit) -> str:
    """The chunk's anchor as written in its first line (built from its source when missing)."""
    match = ANCHOR.match(hit.content)
    if match:
        return match.group(0)
    return f"[{ANCHOR_PREFIX.get(hit.source_type, hit.source_type.upper())} #{hit.source_id}]"


def unique_anchors(hits: Sequence[SearchHit]) -> list[str]:
    return list(dict.fromkeys(anchor(h) for h in hits))


def distinct_hits(hits: Sequence[SearchHit], whole: Collection[tuple[str, int]] = ()) -> list[SearchHit]:
    """The hits without repeats: each chunk once (by source and chunk index), and none of an entity the
    prompt already gives whole (``whole``: the (source_type, source_id) of the looked-up entities)."""
    seen = set(whole)
    kept, chunks = [], set()
    for hit in hits:
        chunk = (hit.source_type, hit.source_id, hit.chunk_ix)
        if (hit.source_type, hit.source_id) in seen or chunk in chunks:
            continue
        chunks.add(chunk)
        kept.append(hit)
    return kept


def context_hits(hits: Sequence[SearchHit], max_chars: int = MAX_CONTEXT_CHARS) -> list[SearchHit]:
    """The hits that fit in the prompt: best first, whole chunks only (the first always fits)."""
    kept: list[SearchHit] = []
    used = 0
    for hit in hits:
        size = len(hit.content.strip())
        if used + size > max_chars and kept:
            break  # hits arrive best first: drop the tail, never cut a chunk in half
        kept.append(hit)
        used += size
    return kept


def recent_history(turns: Sequence[Mapping[str, str]], max_chars: int = MAX_HISTORY_CHARS,
                   max_turn_chars: int = MAX_TURN_CHARS) -> list[dict[str, str]]:
    """The newest turns that fit ``max_chars`` together, each cut to ``max_turn_chars`` (the cut marked with
    an ellipsis), starting with a user turn so a model never reads an answer without its question."""
    kept: list[dict[str, str]] = []
    used = 0
    for turn in reversed(turns):
        content = turn["content"]
        if len(content) > max_turn_chars:
            content = content[:max_turn_chars - 1] + "…"
        if used + len(content) > max_chars:
            break
        kept.append({"role": turn["role"], "content": content})
        used += len(content)
    kept.reverse()
    while kept and kept[0]["role"] != "user":
        kept.pop(0)
    return kept


def build_messages(question: str, hits: Sequence[SearchHit], max_chars: int = MAX_CONTEXT_CHARS, *,
                   asker: Asker | None = None, today: dt.date | None = None, scope: str | None = None,
                   history: Sequence[Mapping[str, str]] = (), evidence: Sequence[str] = (),
                   rules: Sequence[str] = (), lead: str | None = None) -> list[dict[str, str]]:
    """OpenAI chat-completions messages: the rules, the earlier turns, then the context and the question.
    ``evidence`` (what the question was routed to: the answer computed from the records, the entity it names)
    comes first; ``lead`` is the context's first line, what the asker is told before it (that nothing they may
    see covers the question: UNCOVERED_RULE), heading the first block. No block: "(no context)"."""
    blocks = [*(e.strip() for e in evidence), *(hit.content.strip() for hit in context_hits(hits, max_chars))]
    if lead and blocks:
        blocks[0] = f"{lead.strip()}\n{blocks[0]}"
    context = BLOCK_SEPARATOR.join(blocks) if blocks else NO_CONTEXT
    return [
        {"role": "system", "content": system_prompt(asker, today, scope, rules)},
        *({"role": turn["role"], "content": turn["content"]} for turn in history),
        {"role": "user", "content": f"Context:\n\n{context}\n\nQuestion: {question.strip()}"},
    ]
