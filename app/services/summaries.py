"""Project auto-summaries: find the projects whose summary is missing or out of date, ask the LLM for a
new one, store it with the fingerprint of what it was made from (the rules: app/rag/summaries.py).

Used by the scheduled job (app/summaries_job.py) and by ``ragctl summaries``. It runs in a thread of its
own (never on the API's event loop), so each refresh opens its own short-lived HTTP client: the app's
shared client belongs to the server's loop and must not be used from another one.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Literal

import anyio
import httpx

from app.config import Settings
from app.domain import SummarySource
from app.engines.base import Engine
from app.rag import citations
from app.rag.summaries import clean_summary, due_reason, fingerprint, summary_messages, tasks_waiting
from app.services.llm import LLMError, complete

log = logging.getLogger(__name__)

Status = Literal["written", "up_to_date", "waiting", "failed", "deleted"]


class NoLLMError(RuntimeError):
    """Summaries need an LLM: RAG_LLM_URL and RAG_LLM_MODEL are not both set."""


@dataclass(frozen=True)
class SummaryOutcome:
    project_id: int
    name: str
    status: Status  # waiting: only task edits are pending, remade once RAG_SUMMARY_TASK_INTERVAL_S has passed
    reason: str | None  # written: why it was due; failed: the LLM's reason (timeout | unreachable |
    # bad_response | ungrounded: nothing was left once its invented citations were removed)
    summary: str | None  # the summary stored now (the previous one when the LLM failed)


def _utc_now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)


class ProjectSummarizer:
    def __init__(self, engine: Engine, settings: Settings, now: Callable[[], dt.datetime] = _utc_now) -> None:
        self.engine = engine
        self.settings = settings
        self._now = now

    @property
    def configured(self) -> bool:
        return bool(self.settings.llm_url and self.settings.llm_model)

    def refresh(self, project_ids: Collection[int] | None = None, force: bool = False) -> list[SummaryOutcome]:
        """Remake every due summary (every selected one with ``force``); one outcome per selected project.

        Blocking: call it from a worker thread or the CLI. An LLM that times out or cannot be reached
        ends the pass (the remaining due projects are reported failed with the same reason, not asked).
        """
        if not self.configured:
            raise NoLLMError("project summaries need an LLM: set RAG_LLM_URL and RAG_LLM_MODEL")
        sources = self.engine.summary_sources(self.settings.summary_max_tasks)
        if project_ids is not None:
            wanted = set(project_ids)
            sources = [s for s in sources if s.project_id in wanted]
        return anyio.run(self._refresh, sources, force)

    async def _refresh(self, sources: list[SummarySource], force: bool) -> list[SummaryOutcome]:
        outcomes: list[SummaryOutcome] = []
        down: LLMError | None = None
        now = self._now()
        async with httpx.AsyncClient(timeout=self.settings.llm_timeout_s) as client:
            for source in sources:
                reason = "forced" if force else due_reason(source, now, self.settings.summary_task_interval_s)
                if reason is None:
                    status: Status = "waiting" if tasks_waiting(source) else "up_to_date"
                    outcomes.append(SummaryOutcome(source.project_id, source.name, status, None, source.auto_summary))
                elif down is not None:
                    outcomes.append(_failed(source, down))
                else:
                    outcome, error = await self._remake(source, reason, client)
                    outcomes.append(outcome)
                    if error is not None and error.reason != "bad_response":
                        down = error  # the server is away: asking for the next project would fail the same way
        if down is not None:
            left = sum(o.status == "failed" for o in outcomes)
            log.warning("LLM unavailable (%s): %d project summaries left as they were; the next sweep tries again",
                        down.reason, left)
        return outcomes

    async def _remake(self, source: SummarySource, reason: str,
                      client: httpx.AsyncClient) -> tuple[SummaryOutcome, LLMError | None]:
        try:
            raw = clean_summary(await complete(self.settings, summary_messages(source), client))
        except LLMError as exc:
            log.warning("project %d: summary not remade (%s); the previous one stays. LLM %s: %s",
                        source.project_id, reason, exc.reason, exc)
            return _failed(source, exc), exc
        # The same check as a chat answer's: the model was shown the project only, so any other anchor is
        # invented, and the claim resting on it goes (search_projects quotes summaries to the model).
        checked = citations.clean(raw, {f"[PROJECT #{source.project_id}]"})
        text = checked.text
        if checked.removed:
            log.warning("project %d: summary cited what it was not given (%s); those claims were removed",
                        source.project_id, ", ".join(checked.removed))
        if not text:
            return SummaryOutcome(source.project_id, source.name, "failed", "ungrounded", source.auto_summary), None
        # The fingerprint is of the inputs read before the call: an edit made meanwhile is seen next sweep.
        if not self.engine.set_project_summary(source.project_id, text, fingerprint(source)):
            return SummaryOutcome(source.project_id, source.name, "deleted", reason, None), None
        log.info("project %d: summary remade (%s)", source.project_id, reason)
        return SummaryOutcome(source.project_id, source.name, "written", reason, text), None


def _failed(source: SummarySource, error: LLMError) -> SummaryOutcome:
    return SummaryOutcome(source.project_id, source.name, "failed", error.reason, source.auto_summary)
