"""BEIR parsing: good files parse; every malformed line is reported with its file and line."""

from __future__ import annotations

import pytest

from app.rag.beir import BeirFormatError, CorpusDoc, parse_corpus, parse_qrels, parse_queries


def test_well_formed_files_parse():
    corpus = parse_corpus(['{"_id": "d1", "title": "T", "text": "body"}\n', "\n", '{"_id": 7, "text": "x"}\n'], "c")
    assert corpus.docs == [CorpusDoc("d1", "T", "body"), CorpusDoc("7", "", "x")] and corpus.empty == []
    assert parse_queries(['{"_id": "q1", "text": "why?"}\n'], "q") == {"q1": "why?"}
    qrels = parse_qrels(["query-id\tcorpus-id\tscore\n", "q1\td1\t2\n", "q1\td2\t0\r\n", "q2\td1\t1\n"], "r")
    assert qrels == {"q1": {"d1": 2, "d2": 0}, "q2": {"d1": 1}}


@pytest.mark.parametrize("lines, line, problem", [
    (['{"_id": "d1", "text": "a"}\n', "{not json\n"], 2, "not valid JSON"),
    (['["d1", "a"]\n'], 1, "expected a JSON object"),
    (['{"title": "t", "text": "a"}\n'], 1, '"_id" is missing'),
    (['{"_id": "d1", "title": "t"}\n'], 1, '"text" is missing'),
    (['{"_id": "d1", "text": 3}\n'], 1, '"text" must be a string'),
    (['{"_id": "d1", "text": "a"}\n', '{"_id": "d1", "text": "b"}\n'], 2, "repeated"),
])
def test_corpus_errors_name_file_and_line(lines, line, problem):
    with pytest.raises(BeirFormatError) as caught:
        parse_corpus(lines, "corpus.jsonl")
    assert caught.value.line == line and problem in caught.value.problem
    assert str(caught.value).startswith(f"corpus.jsonl:{line}: ")


def test_a_document_with_neither_title_nor_text_is_skipped_and_counted():
    """Cranfield's document 471 is empty: the evaluation goes on without it and says so."""
    corpus = parse_corpus(['{"_id": "d1", "title": "T", "text": "a"}\n', '{"_id": "471", "title": " ", "text": ""}\n',
                           '{"_id": "d2", "text": "b"}\n'], "corpus.jsonl")
    assert [d.doc_id for d in corpus.docs] == ["d1", "d2"] and corpus.empty == ["471"]
    with pytest.raises(BeirFormatError, match="repeated"):  # an empty document still takes its id
        parse_corpus(['{"_id": "471", "text": ""}\n', '{"_id": "471", "text": "b"}\n'], "corpus.jsonl")


def test_query_errors_name_file_and_line():
    with pytest.raises(BeirFormatError, match=r"^queries.jsonl:2: query 'q2' has an empty text$"):
        parse_queries(['{"_id": "q1", "text": "a"}\n', '{"_id": "q2", "text": "  "}\n'], "queries.jsonl")


@pytest.mark.parametrize("lines, line, problem", [
    (["q1\td1\t1\n"], 1, "expected the header"),
    ([], 1, "empty file"),
    (["query-id\tcorpus-id\tscore\n", "q1\td1\n"], 2, "3 tab-separated fields"),
    (["query-id\tcorpus-id\tscore\n", "q1\td1\t1\n", "q1\td2\thigh\n"], 3, "is not an integer"),
    (["query-id\tcorpus-id\tscore\n", "q1\td1\t-1\n"], 2, "negative"),
])
def test_qrels_errors_name_file_and_line(lines, line, problem):
    with pytest.raises(BeirFormatError) as caught:
        parse_qrels(lines, "qrels.tsv")
    assert caught.value.line == line and problem in caught.value.problem
    assert str(caught.value).startswith(f"qrels.tsv:{line}: ")
