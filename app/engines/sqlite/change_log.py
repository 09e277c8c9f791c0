"""What an in-memory index must do to catch up with RAG_CHUNK_CHANGES: nothing, apply some changed
chunk ids, or reload everything. Shared by the vector and the lexical index, which must follow the
log by the same rule so that, refreshed in one read transaction, they describe the same state."""

from __future__ import annotations

from abc import ABC, abstractmethod
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


class FollowsChangeLog(ABC):
    """The refresh both in-memory indexes run: catch up by ``catch_up``'s rule, in the caller's read
    transaction. A subclass keeps ``epoch``, ``seq`` and ``where`` (chunk id → its place) and says how
    to reload everything, drop one chunk, add a batch of changed chunks, and tidy up afterwards."""

    epoch: int | None
    seq: int
    where: dict

    def refresh(self, conn: apsw.Connection) -> None:
        """Bring the index up to the database state the connection sees (call inside a read tx).

        Interrupted half-way (out of memory, a signal), the index is emptied, so the next refresh
        reloads it rather than trusting rows renumbered under postings that were not."""
        try:
            self._catch_up(conn)
        except BaseException:
            self._reset()
            raise

    def _catch_up(self, conn: apsw.Connection) -> None:
        step = catch_up(conn, self.epoch, self.seq, len(self.where))
        if step.changed is None:
            self._full_load(conn, step.epoch, step.max_seq)
            return
        if not step.changed:
            return
        for cid in step.changed:
            self._remove(cid)
        for start in range(0, len(step.changed), LOOKUP_BATCH):
            self._add_changed(conn, step.changed[start : start + LOOKUP_BATCH])
        self._settle()
        self.seq = step.max_seq

    @abstractmethod
    def _reset(self) -> None:
        """Empty, with no epoch: the next refresh loads everything."""

    @abstractmethod
    def _full_load(self, conn: apsw.Connection, epoch: int, max_seq: int) -> None:
        ...

    @abstractmethod
    def _remove(self, chunk_id: int) -> None:
        ...

    @abstractmethod
    def _add_changed(self, conn: apsw.Connection, chunk_ids: list[int]) -> None:
        ...

    def _settle(self) -> None:
        """Compaction or merging once a batch of changes is in (nothing by default)."""
