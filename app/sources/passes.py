"""One pass of a source, run and reported (issue 33): its outcome — when it ended, its counts, and the error that
ended it (a bound hit, a server that made no progress, a wrong token) — is kept beside the source's cursor, so
``ragctl status`` and the log say why a source stopped, and the next pass resumes from the cursor.

The report is one JSON text in SYNC_CURSORS under ``pass:<source>`` (the table is the sources' key → text
store; a cursor is never named so, every source name starts with ``jira:`` or ``github:``): no migration.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from app.domain import Role
from app.engines.base import Engine
from app.records_model import MAX_CURSOR_BYTES
from app.sources.model import SyncCounts
from app.sources.pipeline import run_pass

log = logging.getLogger(__name__)

PREFIX = "pass:"
MAX_ERROR_CHARS = 1000


@dataclass(frozen=True)
class PassReport:
    source: str
    ended_at: str  # ISO UTC
    ok: bool
    summary: str
    error: str | None = None

    def line(self) -> str:
        verdict = "ok" if self.ok else f"ENDED EARLY: {self.error}"
        return f"{self.source}: last pass {self.ended_at[:19]}Z, {self.summary} — {verdict}"


def run_reported(engine: Engine, source: Any, *, overlap: dt.timedelta, reconcile: bool,
                 roles: Mapping[str, Role] | None = None,
                 on_page: Callable[[SyncCounts], None] | None = None) -> SyncCounts:
    """``run_pass`` with its outcome kept (``record``) and logged, the source's client closed after; an error that
    ended the pass is kept, then raised again (the pages already written stay)."""
    written = SyncCounts()

    def counted(counts: SyncCounts) -> None:
        written.add(counts)
        if on_page is not None:
            on_page(counts)

    try:
        counts = run_pass(engine, source, overlap=overlap, reconcile=reconcile, roles=roles, on_page=counted)
    except Exception as exc:
        log.warning("sync of %s ended early: %s (%s written before; the next pass resumes from the cursor)",
                    source.source, exc, written.summary())
        record(engine, source.source, written, error=str(exc) or type(exc).__name__)
        raise
    finally:
        source.client.close()
    record(engine, source.source, counts)
    return counts


def record(engine: Engine, source: str, counts: SyncCounts, error: str | None = None) -> None:
    """Keep the outcome of the pass of ``source`` that just ended (never failing the pass itself)."""
    report = {"ended_at": dt.datetime.now(dt.timezone.utc).replace(tzinfo=None).isoformat(timespec="seconds"),
              "summary": counts.summary(), "error": None if error is None else error[:MAX_ERROR_CHARS]}
    text = json.dumps(report)
    while len(text.encode("utf-8")) > MAX_CURSOR_BYTES and report["error"]:
        report["error"] = report["error"][: len(report["error"]) // 2]
        text = json.dumps(report)
    try:
        engine.set_sync_cursor(PREFIX + source, text)
    except Exception:  # a too-long source name, a database that is down: the log still says it
        log.warning("the report of the pass of %s was not stored", source, exc_info=True)


def read(engine: Engine, sources: list[str]) -> list[PassReport]:
    """The last pass of each source that has one, in the order given."""
    reports = []
    for source in sources:
        try:
            text = engine.sync_cursor(PREFIX + source)
            data = json.loads(text) if text else None
        except ValueError:
            data = None
        if isinstance(data, dict):
            reports.append(PassReport(source, str(data.get("ended_at", "")), data.get("error") is None,
                                      str(data.get("summary", "")), data.get("error")))
    return reports
