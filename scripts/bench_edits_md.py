"""docs/BENCHMARKS.md's section of the edits batch (issue 31; scripts/bench_conversation.py --batch edits): per
mode and split, then the score per kind (each chain, each single template) on tuned and held-out phrasings, and
per language. A run with the same label replaces its tables, so "before" and "after" stand side by side."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from benchmarks_md import replace_section

SECTION = "## Edit chains and field questions (issue 31)"
START, END = "<!-- conversation-edits:start -->", "<!-- conversation-edits:end -->"
SPLITS = (("all", None), ("tuned", ("by_part", "tuned")), ("held-out", ("by_part", "heldout")),
          ("English", ("by_lang", "en")), ("Spanish", ("by_lang", "es")),
          ("chain turns", ("by_shape", "chain turns")), ("single questions", ("by_shape", "single questions")),
          ("chain turn 1", ("by_step", "turn 1")), ("chain turn 2 (the edit)", ("by_step", "turn 2")),
          ("chain turn 3", ("by_step", "turn 3")))
INTRO = (
    f"{SECTION}\n\n"
    "`scripts/bench_conversation.py --batch edits`: app/evals/edit_cases.py over the demo data. **Chains that edit "
    "the last question** (the catalogue's section B: e_person_status, e_person_work, e_sprint, e_project_overdue, "
    "e_urgent, e_status_count, and e_component, e_version, e_label_count, e_type_switch once the demo has those "
    "fields): each turn's truth is the previous question with the turn's edit applied, recomputed from the records "
    "(app/evals/edit_truth.py). **Single questions on every field** (section A adapted to the demo). Asked by Maria "
    "(a manager) and four developers, so someone else's work is a refusal for a developer. Tuned phrasings: "
    "app/evals/conversation_phrasings_edits.py; **held-out**: conversation_phrasings_edits_heldout.py, written by a "
    "helper who never read the code, copied unchanged. Judged as the conversation benchmark is "
    "(app/evals/conversation_score.py; *one*: the picked record alone, any of those tied, and its asked value). "
    "score = (right + right refusal) / questions.\n\n"
)


def _score(rows: list[dict]) -> str:
    return f"{sum(r['outcome'] != 'wrong' for r in rows) / len(rows):.3f}" if rows else "-"


def tables(result: dict, turns: dict[str, list[dict]]) -> str:
    head = (f"### {result['label']} — {result['commit']}, {result['date']} ({result['questions']} questions, "
            f"{result['conversations']} conversations of which {result['chains']} chains, {result['seconds']} s)\n\n"
            "| mode | split | questions | right | right refusal | wrong | leaks | wrong refusals | LLM replies kept "
            "| score |\n|---|---|---|---|---|---|---|---|---|---|\n")
    rows = []
    for mode, f in result["modes"].items():
        for name, where in SPLITS:
            v = f["all"] if where is None else f[where[0]].get(where[1])
            if v is not None:
                score = f"**{v['score']:.3f}**" if name in ("all", "held-out") else f"{v['score']:.3f}"
                rows.append(f"| {mode} | {name} | {v['questions']} | {v['right']} | {v['right_refusal']} | "
                            f"{v['wrong']} | {v['leaks']} | {v['wrong_refusals']} | {v['llm_used']} | {score} |")
    reasons: dict[str, list[str]] = defaultdict(list)
    for key, why in result.get("left_out", {}).items():
        reasons[why].append(key)
    left = "".join(f"\nNot asked ({why}): {', '.join(keys)}.\n" for why, keys in reasons.items())
    return head + "\n".join(rows) + "\n\n" + by_kind(turns) + left


def by_kind(turns: dict[str, list[dict]]) -> str:
    """Per kind and mode: questions, score on all / tuned / held-out / English / Spanish, wrong refusals."""
    out = ("| kind | mode | questions | all | tuned | held-out | English | Spanish | wrong refusals |\n"
           "|---|---|---|---|---|---|---|---|---|\n")
    for mode, rows in turns.items():
        groups: dict[str, list[dict]] = defaultdict(list)
        for r in rows:
            groups[r["family"]].append(r)
        for kind in sorted(groups, key=lambda k: (not k.startswith("e_"), k)):
            g = groups[kind]
            cells = [_score(g), *(_score(_where(g, key, value)) for key, value in
                                  (("part", "tuned"), ("part", "heldout"), ("lang", "en"), ("lang", "es")))]
            out += (f"| {kind} | {mode} | {len(g)} | {' | '.join(cells)} | "
                    f"{sum(r['wrong_refusal'] for r in g)} |\n")
    return out


def _where(rows: Iterable[dict], key: str, value: str) -> list[dict]:
    return [r for r in rows if r[key] == value]


def write_section(result: dict, turns: dict[str, list[dict]]) -> None:
    """Replace this label's tables in the section (kept between markers), keeping the other labels'."""
    replace_section(START, END, INTRO, result["label"], tables(result, turns))


def log_row(result: dict, mode: str) -> str:
    f = result["modes"][mode]
    chains = f["by_shape"].get("chain turns", {}).get("score", "-")
    return (f"| {result['date']} | edits batch ({result['label']}, {mode}) | {result['questions']} questions | score "
            f"all / tuned / held-out / chain turns | {f['all']['score']} / {f['by_part']['tuned']['score']} / "
            f"{f['by_part']['heldout']['score']} / {chains} | leaks {f['all']['leaks']}, wrong refusals "
            f"{f['all']['wrong_refusals']}, LLM replies kept {f['all']['llm_used']} | - |")
