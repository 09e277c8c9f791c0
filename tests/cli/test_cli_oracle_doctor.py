"""`ragctl oracle doctor` from the command line: help with an example, and exit status 2 when nothing
listens (a real refused connection on loopback; the checks themselves are tests/oracle/test_doctor_golden.py)."""

from __future__ import annotations

import json
import socket

from click.testing import CliRunner

from app.cli import CliEnv, cli
from app.config import Settings


def closed_port() -> int:
    with socket.socket() as s:  # bound then closed: nothing listens there
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_help_shows_an_example_and_the_exit_statuses():
    result = CliRunner().invoke(cli, ["oracle", "doctor", "--help"])
    assert result.exit_code == 0
    assert "Example:" in result.stdout and "ragctl oracle doctor --json" in result.stdout
    assert "2 cannot connect" in " ".join(result.stdout.split())


def test_no_listener_is_exit_status_2_with_a_json_connect_line():
    settings = Settings(database_url=f"oracle://app:pw@127.0.0.1:{closed_port()}/FREEPDB1")
    result = CliRunner().invoke(cli, ["oracle", "doctor", "--json"], obj=CliEnv(settings))
    assert result.exit_code == 2, result.output
    data = json.loads(result.stdout)
    assert data["exit_code"] == 2 and [c["name"] for c in data["checks"]] == ["connect"]
    assert data["checks"][0]["status"] == "FAIL" and data["checks"][0]["error"]


def test_a_sqlite_url_is_refused_with_a_clear_message(tmp_path):
    settings = Settings(database_url=f"sqlite:///{tmp_path}/rag.db")
    result = CliRunner().invoke(cli, ["oracle", "doctor"], obj=CliEnv(settings))
    assert result.exit_code == 1 and "needs an oracle:// RAG_DATABASE_URL" in result.output


def doctor_on(monkeypatch, main, extra, *args):
    """`ragctl oracle doctor` against the recording fake of tests/oracle (python-oracledb's connect answers with it)."""
    import oracledb

    conns = iter([main, *extra])
    monkeypatch.setattr(oracledb, "connect", lambda **kwargs: next(conns))
    settings = Settings(database_url="oracle://app:pw@127.0.0.1:1521/FREEPDB1", batch_size=3, top_k=4)
    return CliRunner().invoke(cli, ["oracle", "doctor", "--json", *args], obj=CliEnv(settings))


def test_strict_exits_1_when_a_needed_check_was_skipped_and_plain_exits_0(monkeypatch):
    """A busy queue skips the needed claim check: unproven. The plain run passes (exit 0) and says so; `--strict`
    (what `make test-oracle` runs) exits 1. A skip the service does not need (nothing indexed yet for the token case)
    fails neither."""
    from tests.oracle.fakes import Reply
    from tests.oracle.test_doctor_golden import healthy, is_sql

    for args, expected in (((), 0), (("--strict",), 1)):
        main, extra = healthy()
        main.replies.insert(0, (is_sql("claimable_count"), Reply(rows=[(12,)])))
        result = doctor_on(monkeypatch, main, extra, *args)
        data = json.loads(result.stdout)
        assert result.exit_code == expected == data["exit_code"], result.output
        assert data["strict"] is bool(args)
        skipped = {c["name"]: c["needed"] for c in data["checks"] if c["status"] == "SKIP"}
        assert skipped == {"claim (2 workers)": True}
    main, extra = healthy()
    main.replies.insert(0, (is_sql("doctor_token_case"), Reply(rows=[(0, 0)])))
    result = doctor_on(monkeypatch, main, extra, "--strict")
    assert result.exit_code == 0, result.output
    assert {c["name"] for c in json.loads(result.stdout)["checks"] if c["status"] == "SKIP"} == {"text token case"}
