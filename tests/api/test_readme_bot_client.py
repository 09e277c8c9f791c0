"""The README's bot client ("Building a bot on this API") runs as written against the real API: its Python
block, run as a script with only the API's address changed, from a directory whose data/dev-token holds
the token (as `make run` leaves it), with a demo employee's Telegram id."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from app.api.main import create_app
from tests.support import drain_all, employee, task

from .servers import serve

README = Path(__file__).resolve().parents[2] / "README.md"


def client_script() -> str:
    section = README.read_text().split("## Building a bot on this API", 1)[1].split("\n## ", 1)[0]
    [block] = re.findall(r"```python\n(.*?)```", section, re.S)
    return block


def run_client(script: str, url: str, cwd: Path) -> subprocess.CompletedProcess:
    assert 'API = "http://127.0.0.1:8000/api/v1"' in script
    script = script.replace("http://127.0.0.1:8000", url)
    return subprocess.run([sys.executable, "-c", script], cwd=cwd, capture_output=True, text=True, timeout=60)


def test_the_readme_bot_client_runs_as_written(api_settings, sqlite_engine, tmp_path):
    ana = employee(sqlite_engine, "Ana", "Garcia", telegram_id="100000002")  # as in app/demo_data.py
    task(sqlite_engine, "Fix login bug on the nightly ETL", "Users are logged out after a password reset",
         assignee_id=ana)
    drain_all(sqlite_engine)
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "dev-token").write_text("test-token\n")
    script = client_script()
    with serve(create_app(api_settings, engine=sqlite_engine)) as url:
        done = run_client(script, url, tmp_path)
        unknown = run_client(script.replace('ANA = "100000002"', 'ANA = "ana_tg"'), url, tmp_path)
    assert done.returncode == 0, done.stderr
    assert "[TASK #" in done.stdout and "cited: ['[TASK #" in done.stdout
    # The API's own error body is printed, not a bare status.
    assert unknown.returncode == 1
    assert unknown.stderr.strip() == '404: {"detail":"telegram id ana_tg does not exist"}'
