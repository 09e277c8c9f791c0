"""The golden-set parser (app/rag/golden.py): a malformed line is an error naming file and line."""

from __future__ import annotations

import json

import pytest

from app.rag.golden import GoldenFormatError, parse_golden

GOOD = {"id": "q1", "question": "who fixes the login bug?", "lang": "en", "kind": "answerable",
        "expect": {"maria": [["task", 7]], "ana": []}, "anchor_text": "login bug"}


def line(**changes) -> str:
    row = {**GOOD, **changes}
    return json.dumps({k: v for k, v in row.items() if v is not ...})


def test_a_good_line_parses_with_each_askers_anchors_in_order():
    (q,) = parse_golden([line(), "\n"], "g.jsonl")
    assert (q.qid, q.lang, q.kind, q.anchor_text) == ("q1", "en", "answerable", "login bug")
    assert q.expect == {"maria": (("task", 7),), "ana": ()} and q.askers() == ["maria", "ana"]


@pytest.mark.parametrize("changes, problem", [
    ({"lang": "fr"}, '"lang" must be one of en, es'),
    ({"kind": "maybe"}, '"kind" must be one of'),
    ({"question": " "}, '"question" must be a non-empty string'),
    ({"expect": {}}, '"expect" must be an object naming at least one asker'),
    ({"expect": {"Maria": []}}, "first name in lower case"),
    ({"expect": {"maria": [["comment", 3]]}}, "expected [source_type, positive id]"),
    ({"expect": {"maria": [["task", 0]]}}, "expected [source_type, positive id]"),
    ({"expect": {"maria": [["task", True]]}}, "expected [source_type, positive id]"),
    ({"expect": {"maria": []}}, "needs an expected anchor for at least one asker"),
    ({"kind": "unanswerable"}, "an unanswerable question expects nothing"),
    ({"anchor_text": ""}, '"anchor_text" must be a non-empty string'),
])
def test_a_malformed_line_names_file_line_and_problem(changes, problem):
    with pytest.raises(GoldenFormatError) as caught:
        parse_golden([line(id="q0"), line(**changes)], "g.jsonl")
    assert caught.value.line == 2 and problem in str(caught.value) and str(caught.value).startswith("g.jsonl:2: ")


def test_duplicate_ids_invalid_json_and_an_empty_file_are_errors():
    with pytest.raises(GoldenFormatError, match='g.jsonl:2: duplicate id "q1"'):
        parse_golden([line(), line()], "g.jsonl")
    with pytest.raises(GoldenFormatError, match="g.jsonl:1: not valid JSON"):
        parse_golden(["{nope"], "g.jsonl")
    with pytest.raises(GoldenFormatError, match="no question"):
        parse_golden(["", "  "], "g.jsonl")
