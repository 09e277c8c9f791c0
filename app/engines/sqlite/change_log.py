"""What an in-memory index must do to catch up with RAG_CHUNK_CHANGES: nothing, apply some changed
chunk ids, or reload everything. Shared by the vector and the lexical index, which must follow the
log by the same rule so that, refreshed in one read transaction, they describe the same state."""

from __future__ import annotations

from dataclasses import dataclass

import apsw

from app.engines.sqlite import statements as sql

FULL_RELOAD_RATIO = 0.5  # more changed ids than this share of the index: reload everything
LOOKUP_BATCH = 500  # ids per IN (...) list


@dataclass(frozen=True)
class CatchUp:
    epoch: int
    max_seq: int
    changed: list[int] | None  # None: reload everything; []: already current


def catch_up(conn: apsw.Connection, epoch: int | None, seq: int, size: int) -> CatchUp:
    """Read inside the caller's read transaction. A new epoch (wipe, tokenizer change), a pruned log
    or a log behind the index means a full reload; so does a change set larger than the index can
    apply more cheaply than it reloads."""
    new_epoch, max_seq, pruned = conn.execute(sql.INDEX_POSITION).fetchone()
    if new_epoch != epoch or seq < pruned or max_seq < seq:
        return CatchUp(new_epoch, max_seq, None)
    if max_seq == seq:
        return CatchUp(new_epoch, max_seq, [])
    changed = [row[0] for row in conn.execute(sql.CHANGED_CHUNKS, (seq, max_seq))]
    if len(changed) > max(1000, FULL_RELOAD_RATIO * size):
        return CatchUp(new_epoch, max_seq, None)
    return CatchUp(new_epoch, max_seq, changed)


def batches(ids: list[int]) -> list[list[int]]:
    return [ids[start : start + LOOKUP_BATCH] for start in range(0, len(ids), LOOKUP_BATCH)]
