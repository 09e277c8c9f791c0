"""Retrieval evaluation: index a BEIR collection into a throw-away SQLite database through the
production write path (CRUD → triggers → queue → drain → chunks), ask every judged query as a
manager, and score document-level rankings per search mode.

Used by ``ragctl eval`` and ``scripts/bench_quality.py`` (one implementation).
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from app.config import Settings
from app.domain import Caller, Role, Scope, SearchMode
from app.entities import DOCUMENTS
from app.rag.beir import CorpusDoc, parse_corpus, parse_qrels, parse_queries
from app.rag.jsonl import LineFormatError
from app.rag.retrieval_metrics import document_ranking, mrr_at_k, ndcg_at_k, percentile, recall_at_k
from app.services.records import iter_records

# The modes the engines offer.
EVAL_MODES: tuple[SearchMode, ...] = ("vector", "lexical", "hybrid")
# Chunks asked per query: SciFact has ~2 chunks per document, so 250 chunks rank ≥ 100 documents
# for recall@100. Hybrid's candidate depth grows with k (app.rag.fusion.candidate_depth).
SEARCH_DEPTH = 250
DOC_TYPE = "PAPER"
_PAGE = 1000  # stored documents read per page when resuming a kept database


class EvaluationError(RuntimeError):
    """The collection cannot be evaluated (unreadable file, no judged query, indexing failed)."""


class Progress(Protocol):
    def update(self, n: int = 1) -> Any: ...
    def close(self) -> Any: ...


ProgressFactory = Callable[[str, int], Progress]


class SilentProgress:
    def update(self, n: int = 1) -> None:
        pass

    def close(self) -> None:
        pass


@dataclass(frozen=True)
class Collection:
    corpus: list[CorpusDoc]
    queries: dict[str, str]
    qrels: dict[str, dict[str, int]]  # only judged queries present in ``queries``, only loaded docs
    skipped_empty: int = 0  # corpus documents with neither title nor text (skipped: nothing to find)


def read_lines(path: Path) -> Iterator[str]:
    """The file's lines as text; an undecodable line is a format error naming file and line."""
    try:
        with path.open("rb") as handle:
            for number, raw in enumerate(handle, start=1):
                try:
                    yield raw.decode("utf-8-sig" if number == 1 else "utf-8")
                except UnicodeDecodeError:
                    raise LineFormatError(str(path), number, "not UTF-8 text") from None
    except OSError as exc:
        raise EvaluationError(f"cannot read {path}: {exc.strerror or exc}") from None


def load_collection(corpus: Path, queries: Path, qrels: Path, limit_docs: int | None = None) -> Collection:
    """Parse the three files. ``limit_docs`` keeps the corpus's first N documents, and only the
    judgments (and so the queries) whose documents were kept: a smaller but honest collection."""
    docs, empty = parse_corpus(read_lines(corpus), str(corpus))
    if limit_docs is not None:
        docs = docs[:limit_docs]
    texts = parse_queries(read_lines(queries), str(queries))
    judged = parse_qrels(read_lines(qrels), str(qrels))
    loaded = {doc.doc_id for doc in docs}
    kept: dict[str, dict[str, int]] = {}
    for query_id, grades in judged.items():
        grades = {doc: grade for doc, grade in grades.items() if doc in loaded}
        if query_id in texts and any(grade > 0 for grade in grades.values()):
            kept[query_id] = grades
    if not kept:
        raise EvaluationError(f"no query in {qrels} has a relevant document in {corpus} (and a text in {queries})")
    return Collection(docs, texts, kept, len(empty))


def index_collection(engine, docs: Sequence[CorpusDoc], settings: Settings,
                     progress: ProgressFactory) -> tuple[dict[int, str], dict[str, float]]:
    """Insert every document through CRUD and drain the queue; → (document id → BEIR id, stats).

    A database that already holds the corpus's first N documents (a kept ``--db``) resumes after
    them: only the rest is loaded, and the drain finishes whatever the queue still holds.
    """
    from app.embedding.tokens import count_tokens
    from app.services.indexing import drain

    started = time.perf_counter()
    doc_of = _loaded_prefix(engine, docs)
    reused = len(doc_of)
    bar = progress("loading", len(docs))
    bar.update(reused)
    for doc in docs[reused:]:
        row = engine.create(DOCUMENTS, {"TITLE": doc.title, "BODY": doc.text, "DOC_TYPE": DOC_TYPE})
        doc_of[row["document_id"]] = doc.doc_id
        bar.update(1)
    bar.close()
    bar = progress("indexing", len(docs) - reused)
    done = drain(engine, count_tokens, settings.batch_size, settings.max_attempts,
                 on_batch=lambda r: bar.update(r.claimed - r.failed))
    bar.close()
    if done.failed:
        raise EvaluationError(f"indexing failed: {done.errors[-1]}")
    seconds = time.perf_counter() - started
    chunks = sum(engine.status(settings.max_attempts).chunks_by_source_type.values())
    indexed = len(docs) - reused
    return doc_of, {"documents": len(docs), "chunks": chunks, "reused_documents": reused,
                    "index_seconds": round(seconds, 2),
                    "indexing_docs_per_s": round(indexed / seconds, 2) if seconds and indexed else 0.0}


def _loaded_prefix(engine, docs: Sequence[CorpusDoc]) -> dict[int, str]:
    """Document id → BEIR id of the documents already stored, which must be the corpus's first ones, in order."""
    doc_of: dict[int, str] = {}
    for row in iter_records(engine, DOCUMENTS, _PAGE):
        i = len(doc_of)
        if i >= len(docs) or (row["title"], row["body"]) != (docs[i].title, docs[i].text):
            raise EvaluationError(
                f"the database already holds other documents than this corpus (document {row['document_id']} "
                "is not the corpus's next one): give a new --db path")
        doc_of[row["document_id"]] = docs[i].doc_id
    return doc_of


def score_mode(engine, collection: Collection, doc_of: dict[int, str], mode: SearchMode,
               progress: ProgressFactory) -> dict[str, Any]:
    """Ask every judged query in ``mode`` and average the metrics over the queries."""
    from app.services import search as searching

    manager = Caller(0, Role.MANAGER)  # a manager sees every document: no access filter in the way
    totals = {"ndcg@10": 0.0, "recall@10": 0.0, "recall@100": 0.0, "mrr@10": 0.0}
    latencies: list[float] = []
    bar = progress(f"querying ({mode})", len(collection.qrels))
    for query_id, grades in collection.qrels.items():
        found = searching.search(engine, collection.queries[query_id], manager, SEARCH_DEPTH, Scope(), mode)
        latencies.append(found.embed_ms + found.search_ms)
        ranked = document_ranking(doc_of[h.source_id] for h in found.result.hits if h.source_type == "doc")
        totals["ndcg@10"] += ndcg_at_k(ranked, grades, 10)
        totals["recall@10"] += recall_at_k(ranked, grades, 10)
        totals["recall@100"] += recall_at_k(ranked, grades, 100)
        totals["mrr@10"] += mrr_at_k(ranked, grades, 10)
        bar.update(1)
    bar.close()
    count = len(collection.qrels)
    result: dict[str, Any] = {name: round(total / count, 4) for name, total in totals.items()}
    result.update(queries=count, query_ms_p50=round(percentile(latencies, 50), 2),
                  query_ms_p95=round(percentile(latencies, 95), 2))
    return result


def evaluate(collection: Collection, modes: Sequence[SearchMode], embedder: Any | None = None,
             progress: ProgressFactory | None = None, base: Settings | None = None,
             db_path: Path | None = None) -> dict[str, dict[str, Any]]:
    """Index ``collection`` into a SQLite database and score each mode → {mode: figures}.

    The database is temporary unless ``db_path`` names one to keep (and to resume or reuse: see
    index_collection). Each mode's object also carries the collection's indexing figures.
    """
    if db_path is not None:
        return _evaluate_at(db_path, collection, modes, embedder, progress, base)
    with tempfile.TemporaryDirectory(prefix="ragctl-eval-") as tmp:
        return _evaluate_at(Path(tmp) / "eval.db", collection, modes, embedder, progress, base)


def _evaluate_at(path: Path, collection: Collection, modes: Sequence[SearchMode], embedder: Any | None,
                 progress: ProgressFactory | None, base: Settings | None) -> dict[str, dict[str, Any]]:
    from app.engines.sqlite.engine import SQLiteEngine

    progress = progress or (lambda desc, total: SilentProgress())
    settings = (base or Settings()).model_copy(update={"database_url": f"sqlite:///{path}"})
    engine = SQLiteEngine.open(settings, embedder=embedder)
    try:
        engine.migrate()
        doc_of, stats = index_collection(engine, collection.corpus, settings, progress)
        stats["skipped_empty_documents"] = collection.skipped_empty
        return {mode: {**score_mode(engine, collection, doc_of, mode, progress), **stats} for mode in modes}
    finally:
        engine.close()
