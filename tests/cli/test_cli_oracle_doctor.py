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
