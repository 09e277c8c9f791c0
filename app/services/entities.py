"""Entities by id or tracker key under the access rule: "task 107" or "PAY-1210" in a question, the
conversation's focus, the model's ``get_entity`` tool, and whether an earlier answer still rests only on what
the asker may see.

The rule is the search rule (app/rag/access.py), applied to the entity's live row: a task is visible to
its assignee (and to managers and admins, and under RAG_ACCESS_RULE=project to the members of its project),
a document to its owner or, without one, to everyone, sprints and projects to everyone. An entity the asker may not see and one that does not exist give the
same answer (absent), so an id cannot be probed; so do a key of a task the asker may not see and a key no
task has.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from app.domain import Caller, SearchHit
from app.records_model import SourceRecord, check_external_key
from app.engines.base import Engine
from app.rag.access import is_visible
from app.rag.chunking import identity
from app.rag.refs import EntityRef
from app.rag.templates import body_sections, header_line

# What of a looked-up entity goes into a prompt or an answer: a long document is cut (the chunks
# retrieval returns still cover the rest of it).
ENTITY_CHARS = 6_000


def visible(engine: Engine, caller: Caller, wanted: Iterable[EntityRef]) -> dict[EntityRef, SourceRecord]:
    """The live rows of the wanted entities that the caller may see now, in the order asked."""
    order = list(dict.fromkeys(wanted))
    by_type: dict[str, list[int]] = defaultdict(list)
    for source_type, source_id in order:
        by_type[source_type].append(source_id)
    found: dict[EntityRef, SourceRecord] = {}
    for source_type, ids in by_type.items():
        for source_id, record in engine.load_records(source_type, ids).items():  # type: ignore[arg-type]
            _, _, owner, project_id, *_ = identity(record)
            if is_visible(caller, source_type, owner, project_id, getattr(record, "restricted", False)):
                found[(source_type, source_id)] = record  # type: ignore[index]
    return {ref: found[ref] for ref in order if ref in found}


def refs_by_key(engine: Engine, caller: Caller, keys: Iterable[str]) -> list[EntityRef]:
    """The tasks with these tracker keys (TASKS.EXTERNAL_KEY, any source) that the caller may see now, in the
    order asked: a key of a hidden task and a key no task has both give nothing."""
    ids: list[int] = []
    for key in keys:
        try:
            ids += engine.tasks_by_key(check_external_key(key))
        except ValueError:  # no key any task can have
            continue
    return list(visible(engine, caller, [("task", task_id) for task_id in ids]))


def lookup(engine: Engine, caller: Caller, ref: EntityRef) -> SourceRecord | None:
    return visible(engine, caller, [ref]).get(ref)


def ref_of(record: SourceRecord) -> EntityRef:
    source_type, source_id, *_ = identity(record)
    return source_type, source_id


def text_of(record: SourceRecord, max_chars: int = ENTITY_CHARS) -> str:
    """The entity as its chunks read (header line, then its fields, comments or paragraphs), whole up to
    ``max_chars``: what an answer about it quotes and what the model is shown."""
    text = "\n".join([header_line(record), *body_sections(record)])
    return text if len(text) <= max_chars else text[:max_chars].rsplit("\n", 1)[0] + "\n…"


def as_hit(record: SourceRecord) -> SearchHit:
    """The entity in the shape of a search hit (distance 0: it was asked for, not found by similarity)."""
    source_type, source_id = ref_of(record)
    return SearchHit(source_type, source_id, 0, text_of(record), 0.0, 1.0)
