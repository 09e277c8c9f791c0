"""Imported rows, the part both engines share (pure: no SQL, no I/O): the checks of keys, sources and cursors
before anything is bound, and what ``replace_task_links`` and ``replace_task_sprints`` change.

A task's links are replaced as a set keyed by (LINK_TYPE, TARGET_KEY): rows already equal are left alone, so
a re-import of unchanged links writes nothing and queues nothing (the TASK_LINKS triggers fire on writes only).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from app.domain import is_id
from app.records_model import MAX_CURSOR_BYTES, TaskLink, check_external_key
from app.entities import EntitySpec

def check_external_lookup(entity: EntitySpec, source: str,
                          keys: Sequence[str] | None) -> tuple[str, list[str] | None]:
    """ValueError (nothing read) unless the entity keeps external keys and every value is a key both engines bind;
    the keys without repeats, in order (None: every key of the source)."""
    if entity.external is None:
        raise ValueError(f"{entity.name} keep no external key")
    if isinstance(keys, (str, bytes)):
        raise ValueError("keys must be a sequence of strings, not one string")
    source = check_external_key(source, "source")
    return source, None if keys is None else list(dict.fromkeys(check_external_key(k) for k in keys))


def check_cursor_value(value: str | None) -> str | None:
    """A sync cursor both engines store (Oracle: SYNC_CURSORS.CURSOR_VALUE VARCHAR2(4000 BYTE)), or ValueError."""
    if value is not None and (not isinstance(value, str)
                              or len(value.encode("utf-8", "surrogatepass")) > MAX_CURSOR_BYTES):
        raise ValueError(f"a sync cursor is text of at most {MAX_CURSOR_BYTES} bytes in UTF-8 (or None)")
    return value


CurrentLink = tuple[int, str, str, int | None]  # (LINK_ID, LINK_TYPE, TARGET_KEY, TARGET_TASK_ID) as stored


@dataclass(frozen=True)
class LinkChanges:
    deletes: tuple[int, ...]  # LINK_IDs
    retargets: tuple[tuple[int, int | None], ...]  # (LINK_ID, new TARGET_TASK_ID)
    inserts: tuple[TaskLink, ...]

    def __bool__(self) -> bool:
        return bool(self.deletes or self.retargets or self.inserts)


def wanted_links(links: Sequence[TaskLink], resolved: Mapping[str, int]) -> list[TaskLink]:
    """The links to store: one per (type, key), the first given wins; a target without an id takes the id of
    the task of the same source with that key (``resolved``), so a link made before its target was imported
    finds it on the next replace."""
    if isinstance(links, (str, bytes)) or not all(isinstance(link, TaskLink) for link in links):
        raise ValueError("links must be a sequence of TaskLink")
    out: dict[tuple[str, str], TaskLink] = {}
    for link in links:
        if link.target_task_id is None and link.target_key in resolved:
            link = replace(link, target_task_id=resolved[link.target_key])
        out.setdefault((link.link_type, link.target_key), link)
    return list(out.values())


def link_changes(current: Sequence[CurrentLink], wanted: Sequence[TaskLink]) -> LinkChanges:
    by_key = {(link_type, key): (link_id, target) for link_id, link_type, key, target in current}
    wanted_keys = {(link.link_type, link.target_key) for link in wanted}
    deletes = tuple(sorted(link_id for k, (link_id, _) in by_key.items() if k not in wanted_keys))
    retargets, inserts = [], []
    for link in wanted:
        stored = by_key.get((link.link_type, link.target_key))
        if stored is None:
            inserts.append(link)
        elif stored[1] != link.target_task_id:
            retargets.append((stored[0], link.target_task_id))
    return LinkChanges(deletes, tuple(retargets), tuple(inserts))


def check_sprint_ids(sprint_ids: Sequence[int]) -> list[int]:
    """The ids of ``replace_task_sprints`` once each, in order; ValueError (checked before anything is read) for an
    id that is not a positive integer."""
    if isinstance(sprint_ids, (str, bytes)):
        raise ValueError("sprint ids are a sequence of integers")
    wanted = list(dict.fromkeys(sprint_ids))
    for sprint_id in wanted:
        if not is_id(sprint_id):
            raise ValueError(f"a sprint id is a positive integer, got {sprint_id!r}")
    return wanted


def sprint_changes(stored: Sequence[int], wanted: Sequence[int]) -> tuple[list[int], list[int]]:
    """What ``replace_task_sprints`` changes: (sprint ids to delete, ids to insert), each in order. A set: repeats and
    order say nothing."""
    wanted = check_sprint_ids(wanted)
    now = set(stored)
    return [s for s in dict.fromkeys(stored) if s not in set(wanted)], [s for s in wanted if s not in now]
