#!/usr/bin/env python
"""Replay the questions of issue 23's six numbered failures, as written, on freshly seeded demo data: each
conversation in a new conversation of its asker, offline and with the loopback model that invents anchors
(app/evals/loopback_llm.py). Prints every answer with llm_used / llm_error / the scope after the turn, so a
closing note's before/after table can be checked on any commit.

Usage: .venv/bin/python scripts/replay_issue23.py [--mode offline|inventing|honest|all]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.config import Settings  # noqa: E402
from app.evals.loopback_llm import MODES as LLM_MODES, LoopbackLLM  # noqa: E402
from app.services.golden_eval import demo_callers, demo_engine  # noqa: E402

# (point, asker's first name, the turns of one conversation) — the issue's own words. Point 5 is the inventing
# mode itself; point 6 (title requests) lives on the OpenAI face: tests/api/test_understanding.py replays it.
CONVERSATIONS = (
    (1, "ana", ("what's on my plate?",)),
    (1, "ana", ("anything I should finish before Friday?",)),
    (1, "ana", ("¿en qué ando?",)),
    (1, "maria", ("which project has the most overdue work?",)),
    (1, "maria", ("task 149", "who else commented on it?")),
    (2, "maria", ("summarise the release plan",)),
    (2, "maria", ("¿Cómo debemos escribir los textos en español?",)),
    (2, "maria", ("what is wrong with the login bug?",)),
    (2, "maria", ("who is working on the refund flow and what is its status?",)),
    (3, "ana", ("what was decided in the weekly mobile sync?",)),
    (3, "ana", ("the crash investigation in the iOS build",)),
    (4, "maria", ("only look at the payments project from now on", "what is blocked?")),
)


def replay(engine, settings: Settings, mode: str) -> None:
    import anyio
    import httpx

    from app.services import chat

    callers = demo_callers(engine, {asker for _, asker, _ in CONVERSATIONS})

    async def run() -> None:
        async with httpx.AsyncClient() as client:
            for point, asker, turns in CONVERSATIONS:
                conversation = None
                for text in turns:
                    prep = chat.prepare(engine, settings, callers[asker], chat.ChatInput(text, conversation))
                    answer = await chat.chat(engine, settings, prep, client)
                    conversation = answer.conversation_id
                    scope = (answer.new_scope or answer.scope).value
                    print(f"\n[{mode}] point {point} · {asker}: {text}\n  llm_used={answer.llm_used} "
                          f"llm_error={answer.llm_error} scope={scope}")
                    print("  " + answer.answer[:700].replace("\n", "\n  "))

    anyio.run(run)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mode", default="all", choices=("offline", *LLM_MODES, "all"))
    args = parser.parse_args()
    modes = ("offline", "inventing") if args.mode == "all" else (args.mode,)
    with demo_engine(Settings(_env_file=None)) as (engine, settings):
        offline = settings.model_copy(update={"llm_url": None, "llm_model": None})
        for mode in modes:
            if mode == "offline":
                replay(engine, offline, mode)
                continue
            with LoopbackLLM(mode) as llm:
                replay(engine, offline.model_copy(update={"llm_url": llm.url, "llm_model": "loopback"}), mode)


if __name__ == "__main__":
    main()
