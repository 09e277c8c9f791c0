#!/usr/bin/env python
"""The tracker benchmark of issue 31 (app/services/tracker_bench.py) in full: a generated Jira-shaped export
(~2,100 issues, three projects) imported as `ragctl import jira` does, every question of the catalogue's
section A and every chain of section B asked through the chat by a manager and two developers, offline, with
an honest loopback LLM and with one that invents an anchor; each answer judged right / right refusal / wrong
against a truth computed from the raw JSON (leaks and wrong refusals apart), split tuned vs held-out
phrasings, English vs Spanish, kind, and chain turns vs single questions.

Writes docs/bench/bench_tracker.json (--out; every judged turn too with --turns PATH, kept out of git), puts
the tables under the run's --label in docs/BENCHMARKS.md's "Tracker benchmark" section (a run with the same
label replaces its tables) and appends a row per mode to the log (unless --no-markdown).

Usage: .venv/bin/python scripts/bench_tracker.py [--modes offline,honest,inventing] [--label before]
       [--out PATH] [--turns PATH] [--no-markdown] [--small]
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
from app.services import tracker_bench  # noqa: E402
from benchmarks_md import append_rows, commit, replace_section, save_result  # noqa: E402

SECTION = "## Tracker benchmark (issue 31)"
START, END = "<!-- tracker-bench:start -->", "<!-- tracker-bench:end -->"
SPLITS = (("all", None), ("tuned", ("by_part", "tuned")), ("held-out", ("by_part", "heldout")),
          ("English", ("by_lang", "en")), ("Spanish", ("by_lang", "es")),
          ("single questions", ("by_shape", "single questions")), ("chain turns", ("by_shape", "chain turns")),
          ("manager", ("by_role", "manager")), ("developers", ("by_role", "developer")))
INTRO = (
    f"{SECTION}\n\n"
    "`scripts/bench_tracker.py`: a generated export shaped like a real Jira (app/evals/jira_shaped.py: ~2,100 "
    "issues of three projects, versions released and not, components, 30 labels, seven issue types, the tracker's "
    "status names, seven resolutions, links of the five standard types, two-week sprints over three years, 60 "
    "invented people with multi-word names, skewed activity; dates relative to a fixed today, 2026-12-01) imported "
    "with the code `ragctl import jira` runs, then every template of section A and every chain of section B of the "
    "question catalogue (issue 31) asked through the chat by a manager (an imported person promoted through the "
    "records service) and two developers, a third of the turns Spanish. Truths are computed from the RAW JSON "
    "(app/evals/jira_truth.py restates every template and the access rule); app/evals/tracker_score.py judges the "
    "new kinds (one field: the value in the answer; one record: the first cited; a shared first name: asks which "
    "one). **Held-out** rows use app/evals/tracker_phrasings_heldout.json, written by someone who never read the "
    "code; nobody tunes on it. score = (right + right refusal) / questions; a leak or an invented anchor makes an "
    "answer wrong.\n\n"
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--modes", default=",".join(tracker_bench.MODES))
    parser.add_argument("--label", default="before")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "bench" / "bench_tracker.json")
    parser.add_argument("--turns", type=Path, default=None, help="also write every judged turn here (JSON)")
    parser.add_argument("--no-markdown", action="store_true")
    parser.add_argument("--small", action="store_true",
                        help="only the fixed sample of the suite's test, on a tenth of the export (nothing written "
                             "to BENCHMARKS.md)")
    args = parser.parse_args()
    modes = [m for m in args.modes.split(",") if m]
    started = time.perf_counter()
    result = tracker_bench.evaluate_tracker(modes, base=Settings(_env_file=None), small=args.small,
                                            scale=0.1 if args.small else 1.0)
    seconds = time.perf_counter() - started
    turns = {mode: figures.pop("turns") for mode, figures in result["modes"].items()}
    result.update({"label": args.label, "commit": _commit(), "date": dt.date.today().isoformat(),
                   "seconds": round(seconds, 1), "machine": platform.platform()})
    save_result(args.out, result)
    if args.turns is not None:
        save_result(args.turns, turns)
    for mode, figures in result["modes"].items():
        a = figures["all"]
        print(f"{mode:<10} {a['questions']} questions: right {a['right']}, right refusal {a['right_refusal']}, "
              f"wrong {a['wrong']}, leaks {a['leaks']}, wrong refusals {a['wrong_refusals']}, score {a['score']}")
        print("  by kind: " + ", ".join(f"{k} {v['score']}" for k, v in figures["by_kind"].items()))
    print(f"{seconds:.1f} s for {len(modes)} mode(s), generation, import and indexing included")
    if not args.no_markdown and not args.small:
        write_section(result)
        append_rows([f"| {result['date']} | tracker benchmark ({args.label}, {mode}) | {result['questions']} "
                     f"questions, {result['issues']} issues | score all / tuned / held-out | {f['all']['score']} / "
                     f"{f['by_part']['tuned']['score']} / {f['by_part'].get('heldout', {}).get('score', '-')} | "
                     f"leaks {f['all']['leaks']}, wrong refusals {f['all']['wrong_refusals']}, LLM replies kept "
                     f"{f['all']['llm_used']} | - |"
                     for mode, f in result["modes"].items()])


def tables(result: dict) -> str:
    """The run's tables: per mode and split, then the score per kind and per template and mode."""
    head = (f"### {result['label']} — {result['commit']}, {result['date']} ({result['questions']} questions, "
            f"{result['conversations']} conversations, {result['chains']} chains, {result['issues']} issues, "
            f"{result['seconds']} s)\n\n"
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
    return head + "\n".join(rows) + _by(result, "by_kind", "kind") + _by(result, "by_template", "template or chain")


def _by(result: dict, split: str, title: str) -> str:
    modes = list(result["modes"])
    keys = sorted({k for f in result["modes"].values() for k in f[split]})
    out = (f"\n\n| {title} | questions | {' | '.join(f'{m} score' for m in modes)} | {modes[0]} wrong refusals |\n"
           f"|---|---|{'---|' * len(modes)}---|\n")
    for key in keys:
        first = result["modes"][modes[0]][split][key]
        out += (f"| {key} | {first['questions']} | "
                + " | ".join(f"{result['modes'][m][split][key]['score']:.3f}" for m in modes)
                + f" | {first['wrong_refusals']} |\n")
    return out


def write_section(result: dict) -> None:
    """Replace this label's tables in the section (kept between markers), keeping the other labels'."""
    replace_section(START, END, INTRO, result["label"], tables(result))


def _commit() -> str:
    return commit(ROOT)


if __name__ == "__main__":
    main()
