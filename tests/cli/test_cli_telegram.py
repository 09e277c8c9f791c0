"""``ragctl telegram``: a clear error without its settings; as a real process, it answers and stops on SIGINT."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from click.testing import CliRunner

from app.cli import cli
from app.telegram import text as say
from tests.telegram_bot.fake_api import BACKEND_TOKEN, FakeAPI
from tests.telegram_bot.fake_telegram import TOKEN, FakeTelegram


def test_missing_settings_are_one_clear_line(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)  # no .env here
    for name in [n for n in os.environ if n.startswith("RAG_TELEGRAM_")]:
        monkeypatch.delenv(name)
    result = CliRunner().invoke(cli, ["telegram"])
    assert result.exit_code == 1
    assert "bot_token: Field required" in result.output and "RAG_TELEGRAM_BOT_TOKEN" in result.output


def test_the_command_answers_and_stops_cleanly_on_sigint(tmp_path):
    with FakeTelegram() as tg, FakeAPI() as api:
        tg.push(tg.text_update(7, "/help"))
        env = {**os.environ, "RAG_TELEGRAM_BOT_TOKEN": TOKEN, "RAG_TELEGRAM_API_URL": tg.url,
               "RAG_TELEGRAM_BACKEND_URL": api.url, "RAG_TELEGRAM_BACKEND_TOKEN": BACKEND_TOKEN,
               "RAG_TELEGRAM_STATE_PATH": str(tmp_path / "state.json"), "RAG_TELEGRAM_POLL_TIMEOUT_S": "1"}
        ragctl = Path(sys.executable).with_name("ragctl")
        proc = subprocess.Popen([str(ragctl), "-v", "telegram"], env=env, cwd=tmp_path,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            deadline = time.monotonic() + 20
            while tg.sent_to(7) != [say.HELP] and time.monotonic() < deadline and proc.poll() is None:
                time.sleep(0.05)
            assert tg.sent_to(7) == [say.HELP]
            proc.send_signal(signal.SIGINT)
            output, _ = proc.communicate(timeout=10)
        finally:
            if proc.poll() is None:
                proc.kill()
        assert proc.returncode == 0, output
        assert TOKEN not in output and BACKEND_TOKEN not in output  # secrets never printed, even at INFO
