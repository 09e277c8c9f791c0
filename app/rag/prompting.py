"""Prompt building, citation extraction and the offline extractive answer. Pure: no I/O.

Every chunk starts with its anchor (``[TASK #12] Title``, see templates.py); the model is told to
cite those anchors, and citations are only accepted when they name a chunk we actually gave it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from app.domain import SearchHit

ANCHOR = re.compile(r"\[(TASK|SPRINT|PROJECT|DOC) #(\d+)\]")
_ANCHOR_PREFIX = {"task": "TASK", "sprint": "SPRINT", "project": "PROJECT", "doc": "DOC"}

SYSTEM_PROMPT = (
    "You answer questions about a software team's work (tasks, sprints, projects, comments, documents). "
    "Answer ONLY from the context below; if the context does not contain the answer, say you do not know. "
    "After each statement cite the anchor of the chunk it comes from, exactly as written, e.g. [TASK #12] "
    "or [DOC #3]. Never invent anchors. Answer in the language of the question, briefly."
)
NO_CONTEXT_ANSWER = "I found nothing you are allowed to see that matches this question."
MAX_CONTEXT_CHARS = 12_000  # keeps the prompt well inside small local models' windows


def anchor(hit: SearchHit) -> str:
    """The chunk's anchor as written in its first line (built from its source when missing)."""
    match = ANCHOR.match(hit.content)
    if match:
        return match.group(0)
    return f"[{_ANCHOR_PREFIX.get(hit.source_type, hit.source_type.upper())} #{hit.source_id}]"


def unique_anchors(hits: Sequence[SearchHit]) -> list[str]:
    return list(dict.fromkeys(anchor(h) for h in hits))


def build_messages(question: str, hits: Sequence[SearchHit], max_chars: int = MAX_CONTEXT_CHARS) -> list[dict[str, str]]:
    """OpenAI chat-completions messages: the rules, then the context chunks, then the question."""
    blocks: list[str] = []
    used = 0
    for hit in hits:
        block = hit.content.strip()
        if used + len(block) > max_chars and blocks:
            break  # hits arrive best first: drop the tail, never cut a chunk in half
        blocks.append(block)
        used += len(block)
    context = "\n\n---\n\n".join(blocks) if blocks else "(no context)"
    return [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": f"Context:\n\n{context}\n\nQuestion: {question.strip()}"},
    ]


def cited_anchors(answer: str, hits: Sequence[SearchHit]) -> list[str]:
    """Anchors the answer cites that name a chunk in the context, in order of first citation."""
    known = set(unique_anchors(hits))
    cited = [m.group(0) for m in ANCHOR.finditer(answer)]
    return [a for a in dict.fromkeys(cited) if a in known]


def extractive_answer(hits: Sequence[SearchHit], max_items: int = 5, lines_per_item: int = 3) -> str:
    """An answer without an LLM: the first lines of the best chunks, each ending with its anchor."""
    if not hits:
        return NO_CONTEXT_ANSWER
    seen: set[tuple[str, int]] = set()
    items: list[str] = []
    for hit in hits:
        key = (hit.source_type, hit.source_id)
        if key in seen:
            continue
        seen.add(key)
        lines = [line.strip() for line in hit.content.splitlines() if line.strip()]
        if lines and ANCHOR.match(lines[0]):
            lines[0] = ANCHOR.sub("", lines[0], count=1).strip()
        summary = "; ".join(line for line in lines[:lines_per_item] if line)
        items.append(f"- {summary} {anchor(hit)}")
        if len(items) == max_items:
            break
    return "Most relevant items I can see:\n" + "\n".join(items)
