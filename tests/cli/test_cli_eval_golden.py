"""`ragctl eval --golden`: the golden set over the demo data, end to end through the real SQLite engine."""

from __future__ import annotations

import json
from pathlib import Path

from fastapi.testclient import TestClient

from app.api.main import create_app
from app.services import eval_results

import pytest
from click.testing import CliRunner

from app.cli import CliEnv, cli
from app.cli.eval import _print_golden
from app.services.evaluation import EVAL_MODES

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "golden_demo.jsonl"


@pytest.fixture
def run(sqlite_settings, sqlite_engine):
    def invoke(*args):
        return CliRunner().invoke(cli, ["eval", *args], obj=CliEnv(sqlite_settings, sqlite_engine))

    return invoke


def subset(tmp_path, *ids: str) -> Path:
    """A few questions of the real golden set (the demo data is seeded in full either way)."""
    rows = [line for line in GOLDEN.read_text().splitlines() if json.loads(line)["id"] in ids]
    path = tmp_path / "golden.jsonl"
    path.write_text("\n".join(rows) + "\n")
    return path


def test_golden_json_scores_every_eval_mode_by_role_and_language(run, tmp_path, capsys, sqlite_settings,
                                                                 sqlite_engine):
    path = subset(tmp_path, "en-task-ios-crash", "es-doc-tuteo", "en-none-wifi")
    result = run("--golden", str(path), "--json")
    assert result.exit_code == 0, result.output
    figures = json.loads(result.stdout)
    assert figures["questions"] == 3 and figures["pairs"] == 9 and figures["languages"] == {"en": 2, "es": 1}
    assert list(figures["modes"]) == list(EVAL_MODES)
    for mode, f in figures["modes"].items():
        # ios-crash: maria and ana see task 55, ben does not; tuteo: an org-wide document all three see.
        assert f["all"]["pairs"] == 5 and set(f["by_role"]) == {"manager", "developer"}, mode
        assert f["by_lang"]["en"]["pairs"] == 2 and f["by_lang"]["es"]["pairs"] == 3
        assert f["all"]["recall@5"] == 1.0 and f["all"]["mrr@10"] > 0.5
        assert f["honest"]["unanswerable_pairs"] == 3 and f["honest"]["unanswerable_answered"] == 0
    assert "questions" in result.stderr  # progress on stderr, not in the JSON
    _print_golden(figures)  # the table without --json (one seeding per test keeps this test seconds long)
    table = capsys.readouterr().out
    assert "3 questions (2 en, 1 es), 9 question x asker pairs" in table
    assert f"{EVAL_MODES[0]:<8} developer/es" in table and "unanswerable answered" in table
    kept = eval_results.load(sqlite_settings.eval_results_dir)["golden"]  # for the console's Quality page
    assert kept["results"] == figures and kept["source"] == {"golden": str(path)} and kept["finished_at"]
    # ... which shows it (this run is the suite's only golden one; tests/console drives the page in a browser)
    settings = sqlite_settings.model_copy(update={"run_worker": False, "backfill_on_startup": False})
    with TestClient(create_app(settings, engine=sqlite_engine)) as console:
        console.post("/console/login", data={"token": "test-token"})
        html = console.get("/console/quality").text
    hybrid = figures["modes"]["hybrid"]
    assert 'id="golden-table"' in html and 'id="golden-chart"' in html
    assert f'{hybrid["all"]["recall@5"]:.3f}' in html and f'{hybrid["by_lang"]["es"]["mrr@10"]:.3f}' in html
    assert "role &amp; lang: developer/es" in html and "3 questions, 9 question × asker pairs" in html


@pytest.mark.parametrize("extra", [["--corpus", "{g}"], ["--qrels", "{g}"], ["--limit-docs", "5"]])
def test_golden_and_a_beir_collection_are_mutually_exclusive(run, extra):
    result = run("--golden", str(GOLDEN), *[arg.format(g=GOLDEN) for arg in extra])
    assert result.exit_code == 2 and "--golden cannot be combined with --corpus/--queries/--qrels" in result.output


def test_neither_golden_nor_a_full_beir_collection_is_a_usage_error(run):
    result = run("--corpus", str(GOLDEN))
    assert result.exit_code == 2 and "give --corpus, --queries and --qrels" in result.output


def test_a_malformed_golden_file_names_its_line(run, tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text(GOLDEN.read_text().splitlines()[0] + "\n" + '{"id": "x", "question": "q", "lang": "fr"}\n')
    result = run("--golden", str(path))
    assert result.exit_code == 1 and f"malformed input: {path}:2: \"lang\" must be one of en, es" in result.output


def test_a_golden_file_that_is_not_utf8_is_a_clean_error_naming_its_line(tmp_path):
    bad = tmp_path / "g.jsonl"
    bad.write_bytes(b'{"id": "q1", "question": "\xff"}\n')
    result = CliRunner().invoke(cli, ["eval", "--golden", str(bad)])
    assert result.exit_code == 1 and f"{bad}:1: not UTF-8 text" in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
