#!/usr/bin/env python
"""The conversation benchmark of issue 23 (app/services/conversation_bench.py) in full: every generated
conversation over the demo data, asked through the chat offline, with an honest loopback LLM and with one
that invents an anchor; each answer judged right / right refusal / wrong against a truth computed from the
records (leaks and wrong refusals apart), split tuned vs held-out phrasings, English vs Spanish, and kind.

Writes docs/bench/bench_conversation.json (--out; every judged turn too with --turns PATH), puts the result
tables under the run's --label in docs/BENCHMARKS.md's "Conversation benchmark" section (a run with the same
label replaces its tables, so "before" and "after" stand side by side) and appends a row per mode to the log
(unless --no-markdown).

With --batch edits (issue 31: chains that edit the last question, questions on every field; app/evals/edit_cases.py)
its tables go under the label in their own section, "Edit chains and field questions", split by kind (each chain and
single template), part, language and turn, chain turns apart; the default --out is then docs/bench/bench_edits.json.

Usage: .venv/bin/python scripts/bench_conversation.py [--modes offline,honest,inventing] [--label before]
       [--out PATH] [--turns PATH] [--no-markdown] [--variants | --check | --batch NAME]
"""

from __future__ import annotations

import argparse
import datetime as dt
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from app.config import Settings  # noqa: E402
from app.evals import conversation_phrasings  # noqa: E402
from app.services import conversation_bench  # noqa: E402
from app.services.conversation_bench import EDITS  # noqa: E402
import bench_edits_md as edits_md  # noqa: E402
from benchmarks_md import append_rows, commit, replace_section, save_result  # noqa: E402

SECTION = "## Conversation benchmark (issue 23)"
START, END = "<!-- conversation-bench:start -->", "<!-- conversation-bench:end -->"
SPLITS = (("all", None), ("tuned", ("by_part", "tuned")), ("held-out", ("by_part", "heldout")),
          ("English", ("by_lang", "en")), ("Spanish", ("by_lang", "es")),
          ("chain turns", ("by_shape", "chain turns")))
INTRO = (
    f"{SECTION}\n\n"
    "`scripts/bench_conversation.py` (or `ragctl eval --conversations --llm all`): about 600 questions generated "
    "over the demo data (templates × askers × projects × sprints × phrasings; a third Spanish; 45 chains of 4 "
    "turns: follow-ups about a task, scope changes), asked through the chat as a manager and as developers, each "
    "judged against a truth computed from the seeded records under the access rule (app/evals/conversation_score.py "
    "defines *right* per kind). **Held-out** rows use the phrasings of app/evals/conversation_phrasings_heldout.py, "
    "which nobody tunes on. Modes: offline (extractive), an honest loopback LLM (says the computed answer when the "
    "prompt gives one, else every retrieved record it was given), "
    "and one that appends an invented anchor (\"[TASK #99999]. See also [SPRINT #1].\"). score = (right + right "
    "refusal) / questions; a leak (a hidden entity's anchor or title) or an invented anchor makes an answer wrong. "
    "*LLM replies kept*: turns answered with the model's reply (not replaced by the extractive answer); every reply "
    "of the inventing model cites an anchor it was not given, so issue 23 wants that figure at 0 there. "
    "A run is named by its label and the commit it ran on; \"before\" is the answers of main @ 810fcd1 (the "
    "benchmark's own commit changes no answer). The prompt's context holds only what may be said to the asker (the "
    "instructions are in its system message) and only the chunks the offline relevance gate passes, so the honest "
    "model says what the offline chat says.\n\n"
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--modes", default=",".join(conversation_bench.MODES))
    parser.add_argument("--label", default="before")
    parser.add_argument("--out", type=Path, default=None, help="default docs/bench/bench_conversation.json "
                        "(bench_edits.json with --batch edits)")
    parser.add_argument("--turns", type=Path, default=None, help="also write every judged turn here (JSON)")
    parser.add_argument("--no-markdown", action="store_true")
    parser.add_argument("--variants", action="store_true",
                        help="ask the later-invented phrasings (conversation_phrasings.VARIANTS) instead; "
                             "all tuned, so nothing is written to BENCHMARKS.md")
    parser.add_argument("--batch", choices=sorted([*conversation_phrasings.BATCHES, EDITS]), default=None,
                        help="ask a batch of conversation_phrasings.BATCHES instead (all tuned; nothing is written "
                             "to BENCHMARKS.md; its own templates' figure is printed apart), or 'edits' (issue 31's "
                             "chains and field questions, tuned and held-out, written to their own section)")
    parser.add_argument("--check", action="store_true",
                        help="ask the document check set (conversation_phrasings.DOC_FACTS_CHECK, NOWHERE_CHECK, "
                             "DOC_SUMMARY_CHECK) instead, scored per half; nothing is written to BENCHMARKS.md")
    args = parser.parse_args()
    modes = [m for m in args.modes.split(",") if m]
    started = time.perf_counter()
    result = conversation_bench.evaluate_conversations(modes, base=Settings(_env_file=None), check=args.check,
                                                        batch=args.batch or ("variants" if args.variants else None))
    seconds = time.perf_counter() - started
    turns = {mode: figures.pop("turns") for mode, figures in result["modes"].items()}
    result.update({"label": args.label, "commit": _commit(), "date": dt.date.today().isoformat(),
                   "seconds": round(seconds, 1), "machine": platform.platform()})
    out = args.out or ROOT / "docs" / "bench" / ("bench_edits.json" if args.batch == EDITS else
                                                  "bench_conversation.json")
    save_result(out, result)
    if args.turns is not None:
        save_result(args.turns, turns)
    for mode, figures in result["modes"].items():
        a = figures["all"]
        print(f"{mode:<10} {a['questions']} questions: right {a['right']}, right refusal {a['right_refusal']}, "
              f"wrong {a['wrong']}, leaks {a['leaks']}, wrong refusals {a['wrong_refusals']}, score {a['score']}")
        if args.batch and args.batch != EDITS:  # the chains' other turns keep their phrasings, some held out: not the batch's figure
            own = [t for t in turns[mode] if t["template"] in conversation_phrasings.BATCHES[args.batch]]
            good = sum(t["outcome"] != "wrong" for t in own)
            print(f"{mode:<10} the batch's own {len(own)} turns: score {good / len(own):.4f}, leaks "
                  f"{sum(t['leak'] for t in own)}, wrong refusals {sum(t['wrong_refusal'] for t in own)}")
        if args.check:
            for part, p in figures["by_part"].items():
                print(f"{'':<10} {part}: {p['questions']} questions, score {p['score']}, leaks {p['leaks']}, "
                      f"wrong refusals {p['wrong_refusals']}")
    print(f"{seconds:.1f} s for {len(modes)} mode(s), seeding included")
    if args.batch == EDITS:
        print(edits_md.tables(result, turns))
        if not args.no_markdown:
            edits_md.write_section(result, turns)
            append_rows([edits_md.log_row(result, mode) for mode in result["modes"]])
    if not args.no_markdown and not args.variants and not args.batch and not args.check:
        write_section(result)
        append_rows([f"| {result['date']} | conversation benchmark ({args.label}, {mode}) | {result['questions']} "
                     f"questions | score all / tuned / held-out | {f['all']['score']} / "
                     f"{f['by_part']['tuned']['score']} / {f['by_part']['heldout']['score']} | leaks "
                     f"{f['all']['leaks']}, wrong refusals {f['all']['wrong_refusals']}, LLM replies kept "
                     f"{f['all']['llm_used']} | - |"
                     for mode, f in result["modes"].items()])


def tables(result: dict) -> str:
    """The run's two tables: per mode and split, then the score per kind and mode."""
    head = (f"### {result['label']} — {result['commit']}, {result['date']} ({result['questions']} questions, "
            f"{result['conversations']} conversations, {result['seconds']} s)\n\n"
            "| mode | split | questions | right | right refusal | wrong | leaks | wrong refusals | LLM replies kept "
            "| score |\n|---|---|---|---|---|---|---|---|---|---|\n")
    rows = []
    for mode, f in result["modes"].items():
        for name, where in SPLITS:
            v = f["all"] if where is None else f[where[0]].get(where[1])
            if v is None:
                continue
            score = f"**{v['score']:.3f}**" if name in ("all", "held-out") else f"{v['score']:.3f}"
            rows.append(f"| {mode} | {name} | {v['questions']} | {v['right']} | {v['right_refusal']} | {v['wrong']} "
                        f"| {v['leaks']} | {v['wrong_refusals']} | {v['llm_used']} | {score} |")
    modes = list(result["modes"])
    kinds = sorted({k for f in result["modes"].values() for k in f["by_family"]})
    by_kind = (f"\n\n| kind | questions | {' | '.join(f'{m} score' for m in modes)} |\n"
               f"|---|---|{'---|' * len(modes)}\n")
    for kind in kinds:
        first = result["modes"][modes[0]]["by_family"][kind]
        by_kind += (f"| {kind} | {first['questions']} | "
                    + " | ".join(f"{result['modes'][m]['by_family'][kind]['score']:.3f}" for m in modes) + " |\n")
    return head + "\n".join(rows) + by_kind


def write_section(result: dict) -> None:
    """Replace this label's tables in the section (kept between markers), keeping the other labels'."""
    replace_section(START, END, INTRO, result["label"], tables(result))


def _commit() -> str:
    return commit(ROOT)


if __name__ == "__main__":
    main()
