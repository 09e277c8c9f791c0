"""Judging a tracker-benchmark answer (app/evals/jira_truth.py). Pure.

The kinds the conversation benchmark already has (list, count, compare, refusal) are judged by
app/evals/conversation_score.judge, unchanged. The new kinds:

- field (one field of one record): right when the value appears in the answer (a name as the person's full
  name — or a first name nobody else has —, a date as ISO or spelled out in English or Spanish);
- record (one record: "my most urgent issue", "which is due first", "the newest"): right when the first task
  it cites is the one asked (any of a tie);
- clarify (a first name several people share): right when the answer asks which one is meant (its first
  line is a question back, or it says "which one" / "cuál" / "did you mean" anywhere).

Leaks and invented anchors make any answer wrong, as in conversation_score. For counts and winners, the
places of a ranked list ("1. HIGH — 185") are taken out before the figures are read: a ranking's "1." is
not a count of 1 (the conversation judge would read it as one).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from app.evals.conversation_score import Verdict, _has_any, all_anchors, cited_tasks, figures, judge, leaks, refuses
from app.evals.conversation_truth import Hidden, Truth, fold

ENUMERATION = re.compile(r"(?m)^\s*\d+[.)]\s+")
ASKS_WHICH = re.compile(r"\b(?:which one|which of|did you mean|do you mean|cual de|a cual|cual\b|a quien te refieres|"
                        r"which person|who do you mean|several people|varias personas)")


def judge_tracker(truth: Truth, answer: str, hidden: Hidden, asked: Iterable[str] = ()) -> Verdict:
    """The verdict on ``answer`` for a tracker turn whose truth is ``truth``."""
    if truth.kind in ("count", "compare"):  # "1. HIGH — 185": a ranking's place is not a figure it states
        return judge(truth, ENUMERATION.sub("", answer), hidden, None, asked)
    if truth.kind not in ("field", "record", "clarify"):
        return judge(truth, answer, hidden, None, asked)
    leaked = leaks(answer, hidden, asked)
    if leaked:
        return Verdict("wrong", True, False, f"leak: {leaked[0]}")
    invented = [a for a in all_anchors(answer) if hidden.existing is not None and a not in hidden.existing]
    if invented:
        return Verdict("wrong", False, False, f"cites {invented[0]}, which does not exist")
    if truth.kind == "clarify":
        if ASKS_WHICH.search(fold(answer)) or (refuses(answer) and "?" in answer.split("\n", 1)[0]):
            return Verdict("right")
        return Verdict("wrong", why="does not ask which person is meant")
    refused = refuses(answer)
    if truth.kind == "field":
        if _has_any(answer, truth.values[0], figures(answer)):
            return Verdict("right")
        return Verdict("wrong", False, refused, f"no {truth.raw_values[0] if truth.raw_values else 'value'!r}")
    cited = cited_tasks(answer)
    if cited and cited[0] in truth.tasks:
        return Verdict("right")
    return Verdict("wrong", False, refused, f"first cites {cited[0] if cited else 'no task'}, not "
                                            f"{'/'.join(sorted(truth.raw_values))[:60]}")
