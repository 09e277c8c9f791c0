"""`ragctl eval --conversations`: the conversation benchmark end to end through the real SQLite engine and,
with --llm, a loopback model on a real socket."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from app.cli import CliEnv, cli
from app.cli.eval import _print_conversations


@pytest.fixture
def run(sqlite_settings, sqlite_engine):
    def invoke(*args):
        return CliRunner().invoke(cli, ["eval", *args], obj=CliEnv(sqlite_settings, sqlite_engine))

    return invoke


def test_a_sample_with_the_inventing_model_is_judged_and_printed(run, capsys):
    result = run("--conversations", "--sample", "20", "--llm", "inventing", "--mode", "lexical", "--json")
    assert result.exit_code == 0, result.output
    figures = json.loads(result.stdout)
    assert list(figures["modes"]) == ["inventing"] and figures["questions"] >= 20
    assert figures["search_mode"] == "lexical"
    inventing = figures["modes"]["inventing"]
    a = inventing["all"]
    assert a["questions"] == figures["questions"] == a["right"] + a["right_refusal"] + a["wrong"]
    assert a["leaks"] == 0 and a["llm_used"] + a["llm_errors"] >= 1  # the loopback model was asked
    turns = inventing["turns"]
    assert len(turns) == a["questions"] and {t["outcome"] for t in turns} <= {"right", "right_refusal", "wrong"}
    assert not any("[TASK #99999]" in t["answer"] for t in turns)  # the invented anchor never reaches an answer
    assert set(inventing["by_part"]) == {"tuned", "heldout"} and set(inventing["by_lang"]) == {"en", "es"}
    assert "conversations (inventing)" in result.stderr  # progress on stderr, not in the JSON
    _print_conversations(figures)
    table = capsys.readouterr().out
    assert f"{figures['questions']} questions in {figures['conversations']} conversations" in table
    assert "inventing  heldout" in table and "inventing  compare" in table


@pytest.mark.parametrize("args, message", [
    (("--conversations", "--golden", "x.jsonl"), "--conversations cannot be combined"),
    (("--golden", "x.jsonl", "--llm", "honest"), "--llm and --sample apply to --conversations only"),
    (("--corpus", "c", "--queries", "q", "--qrels", "r", "--sample", "5"), "apply to --conversations only"),
])
def test_conversation_options_do_not_mix_with_the_retrieval_evaluations(run, tmp_path, args, message):
    for name in ("x.jsonl", "c", "q", "r"):
        (tmp_path / name).write_text("{}\n")
    args = tuple(str(tmp_path / a) if a in ("x.jsonl", "c", "q", "r") else a for a in args)
    result = run(*args)
    assert result.exit_code == 2 and message in result.output
