"""One pass of a source as the sync commands and the scheduled job run it: ``run_pass`` (which keeps the pass's
outcome for ``ragctl status``, report.py, the error that ended it included: a bound hit, a server that made no
progress, a wrong token), then a step that still needs the source's client (the project members), the error
logged with what was written before it, and the client closed whatever happens."""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable, Mapping
from typing import Any

from app.domain import Role
from app.engines.base import Engine
from app.sources.model import SyncCounts
from app.sources.pipeline import run_pass

log = logging.getLogger(__name__)


def run_reported(engine: Engine, source: Any, *, overlap: dt.timedelta, reconcile: bool,
                 roles: Mapping[str, Role] | None = None,
                 on_page: Callable[[SyncCounts], None] | None = None,
                 then: Callable[[], Any] | None = None) -> SyncCounts:
    """``run_pass``, then ``then``; an error that ended the pass is logged and raised again (the pages already written
    stay, and the next pass resumes from their cursor); the source's client is closed after."""
    written = SyncCounts()

    def counted(counts: SyncCounts) -> None:
        written.add(counts)
        if on_page is not None:
            on_page(counts)

    try:
        counts = run_pass(engine, source, overlap=overlap, reconcile=reconcile, roles=roles, on_page=counted)
        if then is not None:
            then()
    except Exception as exc:
        log.warning("sync of %s ended early: %s (%s written before; the next pass resumes from the cursor)",
                    source.source, exc, written.summary())
        raise
    finally:
        source.client.close()
    return counts
