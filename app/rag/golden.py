"""Parse the project golden set (tests/data/golden_demo.jsonl): questions over the demo data.

Pure: the caller reads the file and hands its lines over, so an error names file and line.
One JSON object per line:

    {"id": "en-task-ios-crash",                  unique name of the question
     "question": "who is investigating ...?",
     "lang": "en" | "es",
     "kind": "answerable" | "comment_only" | "unanswerable" | "chain" | "lookup" | "structured" | "lexical",
     "follow_ups": ["who is assigned to it?", ...]  chain only: three or more
     "expect": {"maria": [["task", 55]], "ana": [["task", 55]], "ben": []},
     "anchor_text": "crash in the iOS build"}     optional

``expect`` maps an asker (a demo employee's first name, lower case: app/demo_data.EMPLOYEES) to the
entities that answer the question *for that asker*: only what the access rule lets them see, so a
developer asking about a task assigned to someone else expects nothing. Every question is asked by
each asker it names. Anchors are ``[source_type, source_id]`` with the ids a freshly seeded demo
database assigns (seed order, starting at 1). ``anchor_text`` is a phrase every expected entity's
chunk contains: tests/quality checks it, so a change to the demo data that moves ids fails loudly.
``comment_only`` questions are answered only by a task's comment; ``unanswerable`` ones by nothing
in the data (every asker expects nothing, and the chat must say "I don't know").

The last four kinds are asked through the chat itself (offline, as a conversation), because what they
test happens before or after retrieval: a ``chain`` is a question and its follow-ups in one conversation
(every turn expects the same entity: the conversation's focus), a ``lookup`` names an entity by id, a
``structured`` question is a tracker query (it expects exactly the tasks the answer must list), and a
``lexical`` one is answered by a keyword hit whose vector is far (the answer gate must take it).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass

from app.domain import SOURCE_TYPES
from app.rag.jsonl import LineFormatError, json_object

LANGS = ("en", "es")
KINDS = ("answerable", "comment_only", "unanswerable", "chain", "lookup", "structured", "lexical")
CHAT_KINDS = ("chain", "lookup", "structured", "lexical")  # asked through the chat, not only searched
MIN_FOLLOW_UPS = 3
_ASKER = re.compile(r"[a-z]{1,40}")

Anchor = tuple[str, int]


class GoldenFormatError(LineFormatError):
    """A malformed line of the golden set: ``str(exc)`` reads ``<file>:<line>: <what is wrong>``."""


@dataclass(frozen=True)
class GoldenQuestion:
    qid: str
    question: str
    lang: str
    kind: str
    expect: dict[str, tuple[Anchor, ...]]  # asker key → the entities that answer it for them
    anchor_text: str | None = None
    follow_ups: tuple[str, ...] = ()  # chain: the turns after the first, in one conversation

    @property
    def turns(self) -> tuple[str, ...]:
        return (self.question, *self.follow_ups)

    def askers(self) -> list[str]:
        return list(self.expect)


def parse_golden(lines: Iterable[str], source: str = "<golden>") -> list[GoldenQuestion]:
    questions: list[GoldenQuestion] = []
    seen: set[str] = set()
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        question = _question(raw, source, number)
        if question.qid in seen:
            raise GoldenFormatError(source, number, f'duplicate id "{question.qid}"')
        seen.add(question.qid)
        questions.append(question)
    if not questions:
        raise GoldenFormatError(source, 0, "no question in the file")
    return questions


def _question(raw: str, source: str, line: int) -> GoldenQuestion:
    def fail(problem: str) -> GoldenFormatError:
        return GoldenFormatError(source, line, problem)

    obj = json_object(raw, source, line, GoldenFormatError)
    for name in ("id", "question"):
        if not isinstance(obj.get(name), str) or not obj[name].strip():
            raise fail(f'"{name}" must be a non-empty string')
    if obj.get("lang") not in LANGS:
        raise fail(f'"lang" must be one of {", ".join(LANGS)}')
    if obj.get("kind") not in KINDS:
        raise fail(f'"kind" must be one of {", ".join(KINDS)}')
    anchor_text = obj.get("anchor_text")
    if anchor_text is not None and (not isinstance(anchor_text, str) or not anchor_text.strip()):
        raise fail('"anchor_text" must be a non-empty string when present')
    follow_ups = obj.get("follow_ups", [])
    if obj["kind"] == "chain" and (not isinstance(follow_ups, list) or len(follow_ups) < MIN_FOLLOW_UPS
                                   or not all(isinstance(f, str) and f.strip() for f in follow_ups)):
        raise fail(f'a chain needs "follow_ups": a list of at least {MIN_FOLLOW_UPS} non-empty questions')
    if obj["kind"] != "chain" and "follow_ups" in obj:
        raise fail('"follow_ups" belong to a chain only')
    expect = _expect(obj.get("expect"), fail)
    if obj["kind"] == "unanswerable" and any(expect.values()):
        raise fail("an unanswerable question expects nothing for every asker")
    if obj["kind"] not in ("unanswerable", "lookup") and not any(expect.values()):  # a lookup may name a missing id
        raise fail(f'a {obj["kind"]} question needs an expected anchor for at least one asker')
    return GoldenQuestion(obj["id"], obj["question"], obj["lang"], obj["kind"], expect, anchor_text,
                          tuple(follow_ups))


def _expect(value: object, fail) -> dict[str, tuple[Anchor, ...]]:
    if not isinstance(value, dict) or not value:
        raise fail('"expect" must be an object naming at least one asker')
    expect: dict[str, tuple[Anchor, ...]] = {}
    for asker, anchors in value.items():
        if not _ASKER.fullmatch(asker):
            raise fail(f'asker "{asker}" must be a demo employee\'s first name in lower case')
        if not isinstance(anchors, list):
            raise fail(f'"expect.{asker}" must be a list of [source_type, source_id]')
        parsed = []
        for anchor in anchors:
            ok = (isinstance(anchor, list) and len(anchor) == 2 and anchor[0] in SOURCE_TYPES
                  and isinstance(anchor[1], int) and not isinstance(anchor[1], bool) and anchor[1] > 0)
            if not ok:
                raise fail(f'"expect.{asker}" has {json.dumps(anchor)}: expected [source_type, positive id] '
                           f'with source_type one of {", ".join(SOURCE_TYPES)}')
            parsed.append((anchor[0], anchor[1]))
        expect[asker] = tuple(dict.fromkeys(parsed))
    return expect
