"""The last pass of each source, kept for ``ragctl status``: when it ended, its one-line summary, the issues that
failed (named: one bad issue fails alone and is tried again by the next pass) and the error that ended it, if one
did. Kept in SYNC_CURSORS under one reserved name (REPORTS: a source name no tracker can have, since every source
is ``jira:<URL>`` or ``github:<OWNER/REPO>``), as one JSON object of at most 4,000 bytes: the newest passes and
the first failed keys of each are kept when the whole would not fit."""

from __future__ import annotations

import datetime as dt
import json
import logging
from typing import Any

from app.records_model import MAX_CURSOR_BYTES
from app.sources.model import SyncCounts

log = logging.getLogger(__name__)

REPORTS = "status:last-passes"
FAILED_KEPT = 20  # failed keys named per source (the count says how many there were)


def record_pass(engine: Any, source: str, counts: SyncCounts | None, error: str | None = None) -> None:
    """Keep this pass as the source's last; never fails the pass (a report that cannot be stored is logged)."""
    entry: dict[str, Any] = {"at": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")}
    if counts is not None:
        entry["summary"] = counts.summary()
        entry["failed"] = [e.split(": ", 1)[0] for e in counts.errors[:FAILED_KEPT]]
        entry["failed_count"] = counts.failed
    if error:
        entry["error"] = error[:300]
    try:
        reports = last_passes(engine)
        reports.pop(source, None)
        reports[source] = entry  # the newest last
        engine.set_sync_cursor(REPORTS, _fit(reports))
    except Exception:  # the pass's own outcome stands whatever happens here
        log.warning("the report of %s's pass was not stored", source, exc_info=True)


def last_passes(engine: Any) -> dict[str, dict[str, Any]]:
    """Source → its last pass (oldest first), {} when none was recorded."""
    text = engine.sync_cursor(REPORTS)
    try:
        data = json.loads(text) if text else {}
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def lines(passes: dict[str, dict[str, Any]]) -> list[str]:
    """``ragctl status``'s lines about the sources' last passes (``last_passes``)."""
    out = []
    for source, entry in passes.items():
        if not isinstance(entry, dict):
            continue
        line = f"sync:     {source} at {entry.get('at')}: {entry.get('summary') or 'no summary'}"
        if entry.get("error"):
            line += f"; ended by: {entry['error']}"
        out.append(line)
        if entry.get("failed"):
            more = int(entry.get("failed_count") or 0) - len(entry["failed"])
            out.append(f"  failed issues (tried again next pass): {', '.join(map(str, entry['failed']))}"
                       + (f" and {more} more" if more > 0 else ""))
    return out


def _fit(reports: dict[str, dict[str, Any]]) -> str:
    """The reports as JSON within MAX_CURSOR_BYTES: failed keys trimmed first, then the oldest sources dropped, then
    the last one's error shortened (a source name is at most 400 characters: one entry always fits)."""
    for _ in range(200):
        text = json.dumps(reports, ensure_ascii=False)
        if len(text.encode("utf-8")) <= MAX_CURSOR_BYTES:
            return text
        longest = max(reports.values(), key=lambda e: len(e.get("failed") or []))
        if len(longest.get("failed") or []) > 3:
            longest["failed"] = longest["failed"][:len(longest["failed"]) // 2]
        elif len(reports) > 1:
            reports.pop(next(iter(reports)))
        else:
            entry = next(iter(reports.values()))
            entry["failed"] = []
            entry["error"] = str(entry.get("error") or "")[:100]
    raise ValueError("the pass reports do not fit in a cursor row")
