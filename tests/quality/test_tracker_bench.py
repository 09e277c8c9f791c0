"""Quality gate: the tracker benchmark (app/services/tracker_bench.py, issue 31), offline, holds its floor.

A tenth of the generated Jira-shaped export (app/evals/jira_shaped.py, ~210 issues of the three projects) is
imported into a real SQLite database with the code `ragctl import jira` runs and indexed by the worker; the
fixed sample of the benchmark (tracker_bench.sample: one question per template of section A, its asker the
manager or one of the developers, and six chains of section B; both languages, held-out phrasings included) is
asked through the offline chat and judged against truths computed from the raw JSON. Its score may not drop
below tests/data/tracker_bench_floor.json (main's measured score minus 2 questions), it may not leak, and its
wrong refusals may not grow. The whole benchmark, with the loopback LLMs too, is scripts/bench_tracker.py
(docs/BENCHMARKS.md). The generator, truths and judge are unit-tested in tests/unit/test_tracker_bench_data.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from click.testing import CliRunner

from app.cli import cli
from app.cli.root import CliEnv
from app.config import Settings
from app.engines.sqlite.engine import SQLiteEngine
from app.entities import COMMENTS, EMPLOYEES, PROJECTS, SPRINTS, TASK_LINKS, TASKS
from app.evals import jira_shaped, tracker_cases
from app.services import tracker_bench
from app.services.records import iter_records

FLOOR = Path(__file__).resolve().parents[1] / "data" / "tracker_bench_floor.json"


@pytest.fixture(scope="module")
def floor():
    return json.loads(FLOOR.read_text())


@pytest.fixture(scope="module")
def asked(embedder, floor):
    export = jira_shaped.build(scale=floor["scale"])
    with tracker_bench.tracker_engine(Settings(_env_file=None), embedder, export) as imp:
        askers = tracker_cases.askers(imp.tracker)
        cases = tracker_bench.sample(tracker_cases.build(imp.tracker), askers)
        yield imp, cases, tracker_bench.ask(imp, cases, "offline")


def test_the_sample_has_the_promised_shape(asked):
    imp, cases, judged = asked
    assert 35 <= len(judged) <= 50
    assert {j.template for j in judged} >= set(tracker_cases.KIND)
    assert sum(c.is_chain for c in cases) >= 5
    assert {j.lang for j in judged} == {"en", "es"} and {j.part for j in judged} == {"tuned", "heldout"}
    assert {j.role for j in judged} == {"manager", "developer"}
    assert imp.counts.failed == 0 and imp.counts.created == len(imp.tracker.issues)


def test_the_sample_holds_its_floor(asked, floor):
    _, _, judged = asked
    figures = tracker_bench.summarize(judged)
    wrong = [(j.template, j.turn, j.question, j.verdict.why) for j in judged if j.verdict.outcome == "wrong"]
    assert figures["all"]["leaks"] == 0, [w for w, j in zip(wrong, judged) if j.verdict.leak]
    assert figures["all"]["score"] >= floor["offline"]["all"], wrong
    assert figures["by_part"]["heldout"]["score"] >= floor["offline"]["heldout"], wrong
    assert figures["all"]["wrong_refusals"] <= floor["offline"]["wrong_refusals_max"], wrong


def test_the_benchmark_imports_as_ragctl_import_jira_does(tmp_path, embedder):
    """tracker_bench.import_export writes the same rows as `ragctl import jira FOLDER --no-index`."""
    folder = tmp_path / "export"
    folder.mkdir()
    for name, value in jira_shaped.pages(jira_shaped.build(scale=0.03)).items():
        (folder / name).write_text(json.dumps(value))
    rows = []
    for name in ("bench", "cli"):
        settings = Settings(_env_file=None, database_url=f"sqlite:///{tmp_path}/{name}.db")
        engine = SQLiteEngine.open(settings, embedder=embedder)
        try:
            engine.migrate()
            if name == "bench":
                tracker_bench.import_export(engine, settings, folder, index=False)
            else:
                done = CliRunner().invoke(cli, ["import", "jira", str(folder), "--no-index"],
                                          obj=CliEnv(settings, engine), catch_exceptions=False)
                assert done.exit_code == 0, done.output
            rows.append({e.name: list(iter_records(engine, e))
                         for e in (TASKS, EMPLOYEES, PROJECTS, SPRINTS, COMMENTS, TASK_LINKS)})
        finally:
            engine.close()
    assert rows[0][TASKS.name] and rows[0] == rows[1]
