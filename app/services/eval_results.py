"""The last ``ragctl eval`` results, kept on disk for the operator console's Quality page.

One JSON file per kind of evaluation under RAG_EVAL_RESULTS_DIR: ``golden.json`` (the project golden set)
and ``beir.json`` (a BEIR collection), each ``{"kind", "finished_at", "source", "results"}`` where
``results`` is exactly what ``ragctl eval --json`` prints. A run replaces its file atomically, so a
reader never sees half of one; a file of another shape (an older ragctl's, an edited one) is reported as
unreadable rather than handed to a page that would fail on it.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

Kind = Literal["golden", "beir"]
KINDS: tuple[Kind, ...] = ("golden", "beir")


class _Shape(BaseModel):
    """The keys and types the Quality page reads (strict: JSON numbers, no strings that look like them);
    other keys are allowed and ignored."""

    model_config = ConfigDict(strict=True, extra="ignore")


class _Figures(_Shape):
    recall_at_5: float = Field(alias="recall@5")
    mrr_at_10: float = Field(alias="mrr@10")
    pairs: int


class _Honest(_Shape):
    threshold: float
    expecting_pairs: int
    expecting_answered: int
    nothing_visible_pairs: int
    nothing_visible_answered: int
    unanswerable_pairs: int
    unanswerable_answered: int


class _GoldenMode(_Shape):
    all: _Figures
    by_role: dict[str, _Figures] = {}
    by_lang: dict[str, _Figures] = {}
    by_role_lang: dict[str, _Figures] = {}
    by_kind: dict[str, _Figures] = {}
    honest: _Honest | None = None


class _Golden(_Shape):
    questions: int
    pairs: int
    languages: dict[str, int] = {}
    modes: Annotated[dict[str, _GoldenMode], Field(min_length=1)]


class _BeirMode(_Shape):
    ndcg_at_10: float = Field(alias="ndcg@10")
    recall_at_10: float = Field(alias="recall@10")
    recall_at_100: float = Field(alias="recall@100")
    mrr_at_10: float = Field(alias="mrr@10")
    query_ms_p50: float
    query_ms_p95: float
    documents: int
    chunks: int
    queries: int


class _Record(_Shape):
    finished_at: str
    source: dict[str, Any]


class _GoldenRecord(_Record):
    kind: Literal["golden"]
    results: _Golden


class _BeirRecord(_Record):
    kind: Literal["beir"]
    results: dict[str, _BeirMode]


_RECORDS: dict[str, TypeAdapter[Any]] = {"golden": TypeAdapter(_GoldenRecord), "beir": TypeAdapter(_BeirRecord)}


def save(directory: str | Path, kind: Kind, source: dict[str, Any], results: dict[str, Any]) -> Path:
    path = Path(directory) / f"{kind}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    record = {"kind": kind, "finished_at": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
              "source": source, "results": results}
    partial = path.with_name(f".{path.name}.partial")
    partial.write_text(json.dumps(record, indent=1), encoding="utf-8")
    os.replace(partial, path)
    return path


def load(directory: str | Path) -> dict[str, dict[str, Any]]:
    """The stored runs by kind (a kind never run is absent); an unreadable file is ``{"error": why}``."""
    found: dict[str, dict[str, Any]] = {}
    for kind in KINDS:
        path = Path(directory) / f"{kind}.json"
        if not path.exists():
            continue
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
            _RECORDS[kind].validate_python(record)
            found[kind] = record
        except ValidationError as exc:
            found[kind] = {"kind": kind, "error": f"{path}: not a ragctl eval result ({_first_problem(exc)})"}
        except (OSError, ValueError) as exc:
            found[kind] = {"kind": kind, "error": f"{path}: {exc}"}
    return found


def _first_problem(exc: ValidationError) -> str:
    error = exc.errors(include_url=False, include_input=False)[0]
    return f"{'.'.join(map(str, error['loc'])) or 'the file'}: {error['msg']}"
