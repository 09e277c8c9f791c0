"""The reader's steps for time (app/rag/understanding/reader.py): due windows ("this week", "before Friday"), windows
of the created / resolved / updated dates ("created last month"), and a sprint said relative to another ("the
previous sprint", "y el anterior?"). Pure: no I/O."""

from __future__ import annotations

import datetime as dt
import re

from app.rag import task_questions as tq, terms
from app.rag.understanding import glossary as g, windows
from app.rag.understanding.query import Predicate
from app.rag.understanding.said import Said
from app.rag.understanding.spans import Spans


def read_dates(spans: Spans, said: Said, today: dt.date) -> None:
    """Due windows (this week, before Friday), and created / resolved / updated windows (last month)."""
    found: dict[str, object] = {}
    for work_time in g.WORK_TIME.finditer(spans.text):
        spans.take(work_time.span("when"))
    tq.take_weekday(spans.text, spans.taken, found)
    for phrase, _ in spans.find(tq.DUE_PHRASES):
        found.setdefault("due", tq.DUE_PHRASES[phrase])
    window_said = spans.find(g.WINDOWS)
    target = next((name for name, words in g.WINDOW_FIELD_WORDS.items() if spans.find(words)), None) \
        if window_said else None
    if window_said and target is None:  # the date's verb in another of its forms ("¿cuántos cerramos este año?")
        target = next((name for name, verb in g.ORDER_VERBS.items() if spans.find_pattern(verb)), None)
    if window_said and (target is not None or "due" not in found and not spans.says(("due", "vence", "vencen"))):
        start, end = windows.window(g.WINDOWS[window_said[0][0]], today)
        said.add(Predicate(target or "created", window=(start, end)))  # type: ignore[arg-type]
        said.asks_tasks = True
    elif "due" in found:
        (start, end), _ = tq.due_range(found["due"], today, said.lang)
        said.add(Predicate("due", window=(start, end)))
    elif window_said:
        start, end = windows.window(g.WINDOWS[window_said[0][0]], today)
        said.add(Predicate("due", window=(start, end)))


def read_relative_sprint(spans: Spans, said: Said) -> None:
    which = relative_sprint_said(spans) or _bare_relative(spans, said)
    if which is not None:
        if which in g.BARE_RELATIVE_SPRINTS:  # said twice ("el de antes, digo el anterior")
            spans.find_pattern(g.BARE_RELATIVE_SPRINTS[which])
        said.relative_sprint = which
        said.fields.add("sprint")
        said.asks_tasks = True


def _bare_relative(spans: Spans, said: Said) -> str | None:
    """"y el anterior?", "and the earlier one in that project?": a relative sprint said without the word, in a
    follow-up of a few words besides the small ones."""
    free = {m.group() for m in spans.free_words()}
    said_words = [w for w in terms.words(spans.after_greetings()) if not terms.is_stop(w)]
    if not (said.edit or said.fragment) or len(said_words) > 3 \
            or free & set(g.ASKING_WORDS):
        return None
    return next((which for which, said_as in g.BARE_RELATIVE_SPRINTS.items() if spans.find_pattern(said_as)), None)


def relative_sprint_said(spans: Spans) -> str | None:
    """current / previous / next, said before "sprint" (a project's words may stand between: "the current mobile
    sprint") or after it in Spanish ("el sprint actual"); the span is taken."""
    for which, phrases in g.RELATIVE_SPRINTS.items():
        if spans.find(phrases):
            return which
    for which, (before, after) in g.RELATIVE_SPRINT_WORDS.items():
        pattern = rf"(?<![\w-])(?:(?:{before})\s+(?:[\w-]+\s+){{0,2}}(?:sprint|iteration)|(?:sprint|iteracion)\s+" \
                  rf"(?:(?:de\s+[\w-]+|that came|that was|que hubo|just)\s+)?(?:{after}))(?![\w-])"
        for match in re.finditer(pattern, spans.text):
            for word in re.finditer(r"[\w-]+", match.group()):  # each word, where an earlier step took another
                spans.take((match.start() + word.start(), match.start() + word.end()))
            return which
    return None
