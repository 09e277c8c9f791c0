"""``ragctl summaries`` over the real SQLite engine and a loopback chat-completions server."""

from __future__ import annotations

import json

from click.testing import CliRunner

from app.cli import CliEnv, cli
from app.entities import TASKS
from tests.fake_llm import FakeLLM, Reply
from tests.support import project, task


def run(settings, engine, *args):
    return CliRunner().invoke(cli, ["summaries", *args], obj=CliEnv(settings, engine))


def test_refresh_now_json_and_one_project(sqlite_engine, sqlite_settings):
    apollo, zeus = project(sqlite_engine, "Apollo"), project(sqlite_engine, "Zeus")
    pump = task(sqlite_engine, "Fix the fuel pump", project_id=apollo)
    with FakeLLM("Apollo.", "Zeus.", "Apollo again.", "Zeus again.") as llm:
        settings = sqlite_settings.model_copy(update={"llm_url": llm.url, "llm_model": "tiny"})
        first = run(settings, sqlite_engine, "--json")
        assert first.exit_code == 0, first.output
        assert [(o["project_id"], o["status"], o["reason"], o["summary"]) for o in json.loads(first.output)] == [
            (apollo, "written", "missing", "Apollo."), (zeus, "written", "missing", "Zeus.")]
        # A task edit: the job would wait an hour; the command remakes it now.
        sqlite_engine.update(TASKS, pump, {"STATUS": "DONE"})
        second = run(settings, sqlite_engine)
        assert second.exit_code == 0
        assert second.output.splitlines() == [f"project {apollo} Apollo: written (tasks_changed)",
                                              f"project {zeus} Zeus: up to date"]
        # --project remakes that one even when it is up to date.
        third = run(settings, sqlite_engine, "--project", str(zeus), "--json")
        assert [(o["project_id"], o["reason"], o["summary"]) for o in json.loads(third.output)] == [
            (zeus, "forced", "Zeus again.")]
        assert len(llm.requests) == 4
        unknown = run(settings, sqlite_engine, "--project", str(zeus + 100))
        assert unknown.exit_code == 1 and f"there is no project {zeus + 100}" in unknown.output
        assert len(llm.requests) == 4


def test_without_an_llm_or_when_it_fails_the_command_says_so_and_exits_non_zero(sqlite_engine, sqlite_settings):
    apollo = project(sqlite_engine, "Apollo")
    no_llm = run(sqlite_settings, sqlite_engine)
    assert no_llm.exit_code == 1 and "need an LLM: set RAG_LLM_URL and RAG_LLM_MODEL" in no_llm.output
    sqlite_engine.set_project_summary(apollo, "Kept.")
    with FakeLLM(Reply.status(503)) as llm:
        settings = sqlite_settings.model_copy(update={"llm_url": llm.url, "llm_model": "tiny"})
        failed = run(settings, sqlite_engine, "--force")
    assert failed.exit_code == 1
    assert "project 1 Apollo: failed (bad_response)" in failed.output
    assert "1 summary(ies) not remade: the LLM answered bad_response; their previous summaries stay" in failed.output
    assert sqlite_engine.projects_for_matching()[0].auto_summary == "Kept."


def test_bad_project_id_is_a_usage_error(sqlite_engine, sqlite_settings):
    result = run(sqlite_settings, sqlite_engine, "--project", "0")
    assert result.exit_code == 2 and "--project" in result.output
