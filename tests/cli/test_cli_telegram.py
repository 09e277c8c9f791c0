"""``ragctl telegram``: a clear error without its settings or with a wrong one; as a real process, it answers
and stops on SIGINT, and a token our API refuses stops it at start with one line."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from click.testing import CliRunner

from app.cli import cli
from app.telegram.catalogue import EN
from tests.telegram_bot.fake_api import BACKEND_TOKEN, FakeAPI
from tests.telegram_bot.fake_telegram import TOKEN, FakeTelegram


def test_missing_settings_are_one_clear_line(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)  # no .env here
    for name in [n for n in os.environ if n.startswith("RAG_TELEGRAM_")]:
        monkeypatch.delenv(name)
    result = CliRunner().invoke(cli, ["telegram"])
    assert result.exit_code == 1
    assert "bot_token: Field required" in result.output and "RAG_TELEGRAM_BOT_TOKEN" in result.output


def test_webhook_mode_without_a_secret_is_refused(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("RAG_TELEGRAM_BOT_TOKEN", TOKEN)
    monkeypatch.setenv("RAG_TELEGRAM_BACKEND_TOKEN", BACKEND_TOKEN)
    monkeypatch.delenv("RAG_TELEGRAM_WEBHOOK_SECRET", raising=False)
    result = CliRunner().invoke(cli, ["telegram", "--webhook", "https://bot.example.com/tg"])
    assert result.exit_code == 1
    assert "webhook mode needs RAG_TELEGRAM_WEBHOOK_SECRET" in result.output and TOKEN not in result.output


def environment(tg: FakeTelegram, api: FakeAPI, tmp_path: Path, **extra: str) -> dict[str, str]:
    return {**os.environ, "RAG_TELEGRAM_BOT_TOKEN": TOKEN, "RAG_TELEGRAM_API_URL": tg.url,
            "RAG_TELEGRAM_BACKEND_URL": api.url, "RAG_TELEGRAM_BACKEND_TOKEN": BACKEND_TOKEN,
            "RAG_TELEGRAM_STATE_PATH": str(tmp_path / "state.json"), "RAG_TELEGRAM_POLL_TIMEOUT_S": "1", **extra}


RAGCTL = str(Path(sys.executable).with_name("ragctl"))


def test_a_refused_backend_token_exits_at_start_with_one_line(tmp_path):
    with FakeTelegram() as tg, FakeAPI() as api:
        env = environment(tg, api, tmp_path, RAG_TELEGRAM_BACKEND_TOKEN="a-wrong-token")
        done = subprocess.run([RAGCTL, "telegram"], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.splitlines() == [
        f"Error: the API at {api.url}/api/v1 refused RAG_TELEGRAM_BACKEND_TOKEN (401: missing or invalid bearer token)"]
    assert tg.calls == []  # no user ever met the misconfigured bot


def test_the_command_answers_and_stops_cleanly_on_sigint(tmp_path):
    with FakeTelegram() as tg, FakeAPI() as api:
        tg.push(tg.text_update(7, "/help"))
        env = environment(tg, api, tmp_path)
        proc = subprocess.Popen([RAGCTL, "-v", "telegram"], env=env, cwd=tmp_path,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            deadline = time.monotonic() + 20
            while tg.sent_to(7) != [EN.help] and time.monotonic() < deadline and proc.poll() is None:
                time.sleep(0.05)
            assert tg.sent_to(7) == [EN.help]
            proc.send_signal(signal.SIGINT)
            output, _ = proc.communicate(timeout=10)
        finally:
            if proc.poll() is None:
                proc.kill()
        assert proc.returncode == 0, output
        assert TOKEN not in output and BACKEND_TOKEN not in output  # secrets never printed, even at INFO
        lines = [json.loads(line) for line in output.splitlines()]  # JSON lines, like the API's
        assert any(line["message"].startswith("answering as @rag_test_bot") for line in lines)
