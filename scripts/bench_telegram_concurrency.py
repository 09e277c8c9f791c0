#!/usr/bin/env python
"""Four Telegram users asking at the same moment, over an LLM that takes a few seconds to answer.

The real bot (``ragctl telegram``'s code, long polling) between a loopback fake of the Telegram Bot API
(tests/telegram_bot/fake_telegram.py) and the real API under uvicorn (embedded engine, demo data, a
`bot` token), whose LLM is the loopback fake of tests/fake_llm.py answering after ``--llm-delay`` seconds.
Measured in one run: one user alone (one LLM latency, everything around it included), then four demo
users whose questions arrive in one getUpdates answer; for each, the seconds until "thinking…" shows and
until the final answer replaces it. A bot that answers one update at a time gives about 1×, 2×, 3×, 4×
the single latency; a concurrent one about 1× for all four.
Writes docs/bench/telegram_concurrency.json and appends rows to docs/BENCHMARKS.md.

Usage: .venv/bin/python scripts/bench_telegram_concurrency.py [--llm-delay 3] [--label after]
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import platform
import sys
import tempfile
import threading
import time
from pathlib import Path

from pydantic import SecretStr

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app import demo_data  # noqa: E402
from app.api.main import create_app  # noqa: E402
from app.config import Settings  # noqa: E402
from app.engines import open_engine  # noqa: E402
from app.services.demo import seed  # noqa: E402
from app.telegram.config import TelegramSettings  # noqa: E402
from app.worker import Worker  # noqa: E402
from benchmarks_md import append_rows, save_result  # noqa: E402
from tests.api.servers import serve  # noqa: E402
from tests.fake_llm import FakeLLM, Reply  # noqa: E402
from tests.telegram_bot.fake_telegram import TOKEN, FakeTelegram  # noqa: E402

try:
    from app.telegram.runner import run
except ImportError:  # before issue 16 the runner lived in the handlers' module
    from app.telegram.bot import run

BOT_TOKEN = "bench-bot-token"
QUESTION = "what is blocking the login work?"
# Demo people (app/demo_data.py) by Telegram id: two warm the caches, one is timed alone, four ask at once.
WARM, ALONE, FOUR = "100000006", "100000005", ("100000001", "100000002", "100000003", "100000004")


def answered(tg: FakeTelegram, user: str) -> float | None:
    """When the chat's thinking message last changed into something else (the final answer), if it has."""
    edits = [c for c in tg.of("editMessageText") if c.params["chat_id"] == user]
    texts = tg.sent_to(int(user))
    if not edits or not texts or texts[0] == "thinking…":
        return None
    return edits[-1].at


def thinking_at(tg: FakeTelegram, user: str) -> float | None:
    sends = [c for c in tg.of("sendMessage") if c.params["chat_id"] == user]
    return sends[0].at if sends else None


def ask(tg: FakeTelegram, users: tuple[str, ...], timeout_s: float) -> dict[str, dict[str, float]]:
    """Push one question per user in one batch; wait for every answer; seconds from the push."""
    pushed = time.monotonic()
    tg.push(*(tg.text_update(int(u), QUESTION) for u in users))
    deadline = pushed + timeout_s
    while time.monotonic() < deadline and not all(answered(tg, u) for u in users):
        time.sleep(0.02)
    out = {}
    for u in users:
        done, thinking = answered(tg, u), thinking_at(tg, u)
        if done is None or thinking is None:
            raise SystemExit(f"user {u} got no answer within {timeout_s} s")
        out[u] = {"thinking_s": round(thinking - pushed, 3), "answer_s": round(done - pushed, 3)}
    return out


def measure(llm_delay: float, workdir: Path) -> dict:
    settings = Settings(_env_file=None, database_url=f"sqlite:///{workdir}/rag.db", run_worker=False,
                        backfill_on_startup=False, llm_model="bench", llm_timeout_s=60.0,
                        api_token_scopes=SecretStr(json.dumps([{"token": BOT_TOKEN, "scope": "bot"}])))
    engine = open_engine(settings)
    try:
        engine.migrate()
        seed(engine, demo_data.build())
        Worker(engine, settings).run_once()
        with FakeLLM(Reply.stream("The login work waits for the auth service deploy.", delay_s=llm_delay)) as llm:
            api_settings = settings.model_copy(update={"llm_url": llm.url})
            with serve(create_app(api_settings, engine=engine)) as url, FakeTelegram() as tg:
                bot = TelegramSettings(_env_file=None, bot_token=TOKEN, api_url=tg.url, backend_url=url,
                                       backend_token=BOT_TOKEN, state_path=str(workdir / "state.json"),
                                       poll_timeout_s=1, edit_interval_s=1.0)
                return _run_bot(bot, tg, llm_delay)
    finally:
        engine.close()


def _run_bot(bot: TelegramSettings, tg: FakeTelegram, llm_delay: float) -> dict:
    result: dict = {}
    stop = threading.Event()

    def scenario() -> None:
        try:
            timeout = 10 * llm_delay + 30
            ask(tg, (WARM,), timeout)
            result["alone"] = ask(tg, (ALONE,), timeout)[ALONE]
            result["four"] = ask(tg, FOUR, timeout)
        finally:
            stop.set()

    async def main() -> None:
        stopping = asyncio.Event()
        loop = asyncio.get_running_loop()
        threading.Thread(target=lambda: (stop.wait(), loop.call_soon_threadsafe(stopping.set)), daemon=True).start()
        await run(bot, stopping)

    worker = threading.Thread(target=scenario)
    worker.start()
    asyncio.run(main())
    worker.join()
    if "four" not in result:
        raise SystemExit("the scenario did not finish")
    return result


def markdown_rows(result: dict) -> list[str]:
    date, label, delay = result["date"][:10], result["label"], result["llm_delay_s"]
    alone = result["alone"]["answer_s"]
    answers = sorted(v["answer_s"] for v in result["four"].values())
    thinking = sorted(v["thinking_s"] for v in result["four"].values())
    name = f"Telegram bot, 4 users at once ({label})"
    size = f"LLM answers in {delay:g} s"
    return [
        f"| {date} | {name} | {size} | answers at s | {' / '.join(f'{a:.2f}' for a in answers)} | "
        f"one user alone {alone:.2f} s | slowest {answers[-1] / alone:.2f}× alone |",
        f"| {date} | {name} | {size} | \"thinking…\" at s | {' / '.join(f'{t:.2f}' for t in thinking)} | - | - |",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--llm-delay", type=float, default=3.0, help="seconds the fake LLM waits before answering")
    parser.add_argument("--label", default="after", help="names the row (e.g. before / after)")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "bench" / "telegram_concurrency.json")
    parser.add_argument("--no-md", action="store_true", help="do not append rows to docs/BENCHMARKS.md")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        measured = measure(args.llm_delay, Path(tmp))
    result = {"date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"), "label": args.label,
              "llm_delay_s": args.llm_delay, "machine": platform.platform(), **measured}
    save_result(args.out, result)
    print(json.dumps(result, indent=2))
    if not args.no_md:
        append_rows(markdown_rows(result))


if __name__ == "__main__":
    main()
