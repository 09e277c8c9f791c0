"""Project auto-summaries on the real SQLite engine against a loopback chat-completions server
(tests/fake_llm.py): backfill at startup, a project edit remakes, task edits at most once per interval,
an LLM failure keeps the previous summary, and the summary's own RAG_DIRTY row causes no loop."""

from __future__ import annotations

import logging
import time

from fastapi.testclient import TestClient

from app.api.main import create_app
from app.entities import PROJECTS, TASKS
from app.rag.summaries import fingerprint
from app.services.summaries import ProjectSummarizer
from tests.fake_llm import FakeLLM, Reply
from tests.support import drain_all, peek_queue, project, task

AUTH = {"Authorization": "Bearer test-token"}


def with_llm(settings, llm, **extra):
    return settings.model_copy(update={"llm_url": llm.url, "llm_model": "tiny", **extra})


def summary_of(engine, project_id):
    return next(s for s in engine.summary_sources(20) if s.project_id == project_id)


def wait_for(predicate, timeout_s=5.0):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return False


def prompt_of(request):
    return request["body"]["messages"][-1]["content"]


def test_backfill_at_startup_then_an_api_project_edit_is_remade_at_the_next_sweep(sqlite_engine, sqlite_settings):
    apollo = project(sqlite_engine, "Apollo", description="Launch the rocket")
    task(sqlite_engine, "Fix the fuel pump", project_id=apollo, status="IN_PROGRESS")
    zeus = project(sqlite_engine, "Zeus", description="Weather service")
    sqlite_engine.set_project_summary(zeus, "Zeus forecasts.", fingerprint(summary_of(sqlite_engine, zeus)))
    with FakeLLM("Apollo launches rockets.", "Apollo now lands rockets.") as llm:
        settings = with_llm(sqlite_settings, llm, backfill_on_startup=False, summary_sweep_s=0.1)
        with TestClient(create_app(settings, engine=sqlite_engine)) as client:
            job = client.app.state.summaries
            assert job is not None and job.started
            assert wait_for(lambda: summary_of(sqlite_engine, apollo).auto_summary == "Apollo launches rockets.")
            assert wait_for(lambda: job.sweeps >= 3)
            # Only the missing one was asked for; Zeus was up to date; later sweeps asked nothing.
            assert len(llm.requests) == 1
            prompt = prompt_of(llm.requests[0])
            assert "Name: Apollo" in prompt and "Fix the fuel pump [IN_PROGRESS]" in prompt
            assert summary_of(sqlite_engine, zeus).auto_summary == "Zeus forecasts."

            response = client.patch(f"/api/v1/projects/{apollo}", json={"description": "Land the rocket"}, headers=AUTH)
            assert response.status_code == 200
            assert wait_for(lambda: summary_of(sqlite_engine, apollo).auto_summary == "Apollo now lands rockets.")
            assert "Land the rocket" in prompt_of(llm.requests[1])
        assert not job.started  # the lifespan stopped it
    assert len(llm.requests) == 2


def test_without_an_llm_the_job_does_nothing_and_says_so_once(sqlite_engine, sqlite_settings, caplog):
    project(sqlite_engine, "Apollo")
    settings = sqlite_settings.model_copy(update={"backfill_on_startup": False})
    with caplog.at_level(logging.INFO, logger="app.summaries_job"):
        with TestClient(create_app(settings, engine=sqlite_engine)) as client:
            assert client.app.state.summaries is None
    assert [r.getMessage() for r in caplog.records].count(
        "project auto-summaries are off: no LLM is configured (RAG_LLM_URL, RAG_LLM_MODEL)") == 1
    assert summary_of(sqlite_engine, 1).auto_summary is None


def test_a_project_edit_remakes_the_summary(sqlite_engine, sqlite_settings):
    apollo = project(sqlite_engine, "Apollo", description="Launch the rocket")
    with FakeLLM("First.", "Second.") as llm:
        summarizer = ProjectSummarizer(sqlite_engine, with_llm(sqlite_settings, llm))
        [first] = summarizer.refresh()
        assert (first.status, first.reason, first.summary) == ("written", "missing", "First.")
        assert [o.status for o in summarizer.refresh()] == ["up_to_date"] and len(llm.requests) == 1
        sqlite_engine.update(PROJECTS, apollo, {"NAME": "Apollo II"})
        [second] = summarizer.refresh()
        assert (second.status, second.reason) == ("written", "project_edited")
        assert "Name: Apollo II" in prompt_of(llm.requests[1])
    assert summary_of(sqlite_engine, apollo).auto_summary == "Second."


def test_task_edits_remake_the_summary_at_most_once_per_interval(sqlite_engine, sqlite_settings):
    apollo = project(sqlite_engine, "Apollo")
    pump = task(sqlite_engine, "Fix the fuel pump", project_id=apollo)
    with FakeLLM("One.", "Two.", "Three.") as llm:
        summarizer = ProjectSummarizer(sqlite_engine, with_llm(sqlite_settings, llm, summary_task_interval_s=1.0))
        assert summarizer.refresh()[0].status == "written"
        sqlite_engine.update(TASKS, pump, {"STATUS": "DONE"})
        task(sqlite_engine, "Paint the fins", project_id=apollo)
        # Within the interval: two task edits, no call; the summary waits.
        assert [(o.status, o.summary) for o in summarizer.refresh()] == [("waiting", "One.")]
        assert len(llm.requests) == 1
        time.sleep(1.1)
        [remade] = summarizer.refresh()
        assert (remade.status, remade.reason, remade.summary) == ("written", "tasks_changed", "Two.")
        prompt = prompt_of(llm.requests[1])
        assert "Paint the fins [TODO]" in prompt and "Fix the fuel pump [DONE]" in prompt
        sqlite_engine.update(TASKS, pump, {"STATUS": "REOPENED"})
        assert summarizer.refresh()[0].status == "waiting" and len(llm.requests) == 2
        # A project edit does not wait for the task interval.
        sqlite_engine.update(PROJECTS, apollo, {"DESCRIPTION": "Now with fins"})
        assert summarizer.refresh()[0].reason == "project_edited" and len(llm.requests) == 3


def test_an_llm_failure_keeps_the_previous_summary_and_logs_the_reason(sqlite_engine, sqlite_settings, caplog):
    apollo = project(sqlite_engine, "Apollo")
    with FakeLLM("Apollo launches.", Reply.status(500)) as llm:
        summarizer = ProjectSummarizer(sqlite_engine, with_llm(sqlite_settings, llm))
        summarizer.refresh()
        sqlite_engine.update(PROJECTS, apollo, {"DESCRIPTION": "Changed"})
        with caplog.at_level(logging.WARNING, logger="app.services.summaries"):
            [failed] = summarizer.refresh()
    assert (failed.status, failed.reason, failed.summary) == ("failed", "bad_response", "Apollo launches.")
    assert summary_of(sqlite_engine, apollo).auto_summary == "Apollo launches."
    assert any("summary not remade (project_edited)" in r.getMessage() and "LLM bad_response" in r.getMessage()
               for r in caplog.records)


def test_a_silent_llm_times_out_once_per_sweep_not_once_per_project(sqlite_engine, sqlite_settings, caplog):
    for name in ("Apollo", "Zeus", "Hermes"):
        project(sqlite_engine, name)
    with FakeLLM(Reply.silent()) as llm:
        summarizer = ProjectSummarizer(sqlite_engine, with_llm(sqlite_settings, llm, llm_timeout_s=0.3))
        with caplog.at_level(logging.WARNING, logger="app.services.summaries"):
            outcomes = summarizer.refresh()
        assert [(o.status, o.reason) for o in outcomes] == [("failed", "timeout")] * 3
        assert len(llm.requests) == 1  # the server is away: the other two were not asked
    assert any("LLM unavailable (timeout): 3 project summaries left as they were" in r.getMessage()
               for r in caplog.records)
    assert all(s.auto_summary is None for s in sqlite_engine.summary_sources(5))


def test_the_summary_writes_own_rag_dirty_row_causes_no_loop(sqlite_engine, sqlite_settings):
    apollo = project(sqlite_engine, "Apollo", description="Launch the rocket")
    drain_all(sqlite_engine)
    with FakeLLM("Apollo launches rockets.") as llm:
        summarizer = ProjectSummarizer(sqlite_engine, with_llm(sqlite_settings, llm))
        summarizer.refresh()
        # The project update trigger queued the project once; the job does not read that queue.
        assert [(r.source_type, r.source_id) for r in peek_queue(sqlite_engine)] == [("project", apollo)]
        assert [o.status for o in summarizer.refresh()] == ["up_to_date"]
        result = drain_all(sqlite_engine)
        assert (result.claimed, result.chunks_written) == (1, 0)  # the chunk text has no summary in it
        assert [o.status for o in summarizer.refresh()] == ["up_to_date"]
        assert peek_queue(sqlite_engine) == [] and len(llm.requests) == 1
