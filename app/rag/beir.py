"""Parse a BEIR-format collection (corpus.jsonl, queries.jsonl, qrels.tsv) from lines of text.

Pure: the caller reads the files and hands lines over with the file's name, so every error can
name the file and the 1-based line (``BeirFormatError``) without this module doing I/O.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import NamedTuple

from app.rag.jsonl import LineFormatError, json_object


class BeirFormatError(LineFormatError):
    """A malformed line of a BEIR file: ``str(exc)`` reads ``<file>:<line>: <what is wrong>``."""


@dataclass(frozen=True)
class CorpusDoc:
    doc_id: str
    title: str
    text: str


def _field(obj: dict, name: str, source: str, line: int, required: bool = True) -> str:
    value = obj.get(name, None if required else "")
    if isinstance(value, int) and not isinstance(value, bool) and name == "_id":
        value = str(value)  # some BEIR exports write numeric ids; they are names, not numbers
    if not isinstance(value, str):
        what = "is missing" if value is None else "must be a string"
        raise BeirFormatError(source, line, f'"{name}" {what}')
    return value


def _numbered(lines: Iterable[str]) -> Iterable[tuple[int, str]]:
    """Non-blank lines with their 1-based numbers (a trailing newline is not a record)."""
    for number, raw in enumerate(lines, start=1):
        if raw.strip():
            yield number, raw


class ParsedCorpus(NamedTuple):
    docs: list[CorpusDoc]
    empty: list[str]  # ids of documents with neither title nor text: skipped (nothing to index or find)


def parse_corpus(lines: Iterable[str], source: str) -> ParsedCorpus:
    """``{"_id", "title", "text"}`` per line, in file order. A document with neither a title nor a text
    (Cranfield has one) cannot be indexed or found: it is skipped and counted, not an error."""
    docs: list[CorpusDoc] = []
    empty: list[str] = []
    seen: set[str] = set()
    for number, raw in _numbered(lines):
        obj = json_object(raw, source, number, BeirFormatError)
        doc_id = _field(obj, "_id", source, number)
        title = _field(obj, "title", source, number, required=False)
        text = _field(obj, "text", source, number)
        if not doc_id or doc_id in seen:
            raise BeirFormatError(source, number, f'"_id" {doc_id!r} is empty or repeated')
        seen.add(doc_id)
        if title.strip() or text.strip():
            docs.append(CorpusDoc(doc_id, title, text))
        else:
            empty.append(doc_id)
    return ParsedCorpus(docs, empty)


def parse_queries(lines: Iterable[str], source: str) -> dict[str, str]:
    """``{"_id", "text"}`` per line → {query id: text}; an empty query text is an error."""
    queries: dict[str, str] = {}
    for number, raw in _numbered(lines):
        obj = json_object(raw, source, number, BeirFormatError)
        query_id = _field(obj, "_id", source, number)
        text = _field(obj, "text", source, number)
        if not query_id or query_id in queries:
            raise BeirFormatError(source, number, f'"_id" {query_id!r} is empty or repeated')
        if not text.strip():
            raise BeirFormatError(source, number, f"query {query_id!r} has an empty text")
        queries[query_id] = text
    return queries


QRELS_HEADER = ("query-id", "corpus-id", "score")


def parse_qrels(lines: Iterable[str], source: str) -> dict[str, dict[str, int]]:
    """TSV with the header ``query-id corpus-id score``, then graded judgments (integers ≥ 0).

    → {query id: {doc id: grade}}; a grade of 0 is kept (judged not relevant).
    """
    qrels: dict[str, dict[str, int]] = {}
    header_seen = False
    for number, raw in _numbered(lines):
        fields = raw.rstrip("\r\n").split("\t")
        if not header_seen:
            if tuple(f.strip().lower() for f in fields) != QRELS_HEADER:
                raise BeirFormatError(source, number, "expected the header 'query-id<TAB>corpus-id<TAB>score'")
            header_seen = True
            continue
        if len(fields) != 3 or not fields[0].strip() or not fields[1].strip():
            raise BeirFormatError(source, number, "expected 3 tab-separated fields: query-id, corpus-id, score")
        query_id, doc_id, score = (f.strip() for f in fields)
        try:
            grade = int(score)
        except ValueError:
            raise BeirFormatError(source, number, f"score {score!r} is not an integer") from None
        if grade < 0:
            raise BeirFormatError(source, number, f"score {grade} is negative")
        qrels.setdefault(query_id, {})[doc_id] = grade
    if not header_seen:
        raise BeirFormatError(source, 1, "empty file: expected the header 'query-id<TAB>corpus-id<TAB>score'")
    return qrels
