#!/usr/bin/env python
"""The bot's peak memory while 8 clients post 90 MiB each to its webhook without Telegram's secret.

The real bot (``ragctl telegram --webhook``, a process of its own) between the loopback fakes of the Bot
API and of our API (tests/telegram_bot/). Each attacker declares and sends a 90 MiB body without the secret
header, sending only while the bot still reads. The figure is the bot's peak resident memory (VmHWM) over
its peak before the attack. Before (main 13fb438, python-telegram-bot's webhook server): 84 → 980 MiB, each
403 only after the whole body was read; a webhook that checks the headers first reads none of it.
Writes docs/bench/telegram_webhook.json and appends rows to docs/BENCHMARKS.md.

Usage: .venv/bin/python scripts/bench_telegram_webhook.py [--posts 8] [--mib 90] [--label after]
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.telegram_bot.conftest import WEBHOOK_SECRET, free_port  # noqa: E402
from tests.telegram_bot.fake_api import BACKEND_TOKEN, FakeAPI  # noqa: E402
from tests.telegram_bot.fake_telegram import TOKEN, FakeTelegram, post_update  # noqa: E402
from tests.telegram_bot.raw_post import post  # noqa: E402


def peak_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise RuntimeError("no VmHWM in /proc status (Linux only)")


def attack(posts: int = 8, mib: int = 90) -> dict:
    """Run the bot, wait until its webhook answers, post ``posts`` × ``mib`` MiB at once without the secret."""
    with FakeTelegram() as tg, FakeAPI() as api, tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        url = f"http://127.0.0.1:{port}/telegram/hook"
        env = {**os.environ, "PYTHONPATH": str(ROOT), "RAG_TELEGRAM_BOT_TOKEN": TOKEN,
               "RAG_TELEGRAM_API_URL": tg.url, "RAG_TELEGRAM_BACKEND_URL": api.url,
               "RAG_TELEGRAM_BACKEND_TOKEN": BACKEND_TOKEN, "RAG_TELEGRAM_STATE_PATH": f"{tmp}/state.json",
               "RAG_TELEGRAM_WEBHOOK_URL": url, "RAG_TELEGRAM_WEBHOOK_PORT": str(port),
               "RAG_TELEGRAM_WEBHOOK_SECRET": WEBHOOK_SECRET, "RAG_TELEGRAM_LOG_FORMAT": "text"}
        bot = subprocess.Popen([sys.executable, "-c", "from app.cli import main; main()", "telegram"], env=env,
                               cwd=tmp, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            deadline = time.monotonic() + 120
            while post_update(url, {}, None) is None:
                if bot.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"the bot did not start: {bot.stderr.read().decode()[-2000:]}")
                time.sleep(0.05)
            before = peak_kib(bot.pid)
            results: list[tuple[int | None, int]] = []
            threads = [threading.Thread(target=lambda: results.append(
                post(url, {"Content-Type": "application/json"}, mib * 1024 * 1024, wait_s=120)))
                for _ in range(posts)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            after = peak_kib(bot.pid)
        finally:
            bot.terminate()
            bot.wait(timeout=30)
    return {"posts": posts, "mib_each": mib, "statuses": sorted(str(s) for s, _ in results),
            "body_mib_sent": round(sum(sent for _, sent in results) / 2**20, 1),
            "peak_before_mib": round(before / 1024, 1), "peak_after_mib": round(after / 1024, 1),
            "growth_mib": round((after - before) / 1024, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--posts", type=int, default=8)
    parser.add_argument("--mib", type=int, default=90)
    parser.add_argument("--label", default="after")
    args = parser.parse_args()
    from scripts.benchmarks_md import append_rows, save_result
    result = attack(args.posts, args.mib) | {"label": args.label, "date": dt.date.today().isoformat()}
    print(result)
    save_result(ROOT / "docs" / "bench" / "telegram_webhook.json", result)
    append_rows([f"| {result['date']} | Telegram webhook without the secret ({args.label}) | {args.posts} × {args.mib} MiB "
                 f"posts at once | bot peak RSS MiB (body MiB sent) | {result['peak_after_mib']} "
                 f"({result['body_mib_sent']}) | before the attack {result['peak_before_mib']} MiB; statuses "
                 f"{'/'.join(result['statuses'])} | +{result['growth_mib']} MiB |"])


if __name__ == "__main__":
    main()
