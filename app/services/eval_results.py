"""The last ``ragctl eval`` results, kept on disk for the operator console's Quality page.

One JSON file per kind of evaluation under RAG_EVAL_RESULTS_DIR: ``golden.json`` (the project golden set)
and ``beir.json`` (a BEIR collection), each ``{"kind", "finished_at", "source", "results"}`` where
``results`` is exactly what ``ragctl eval --json`` prints. A run replaces its file atomically, so a
reader never sees half of one.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path
from typing import Any, Literal

Kind = Literal["golden", "beir"]
KINDS: tuple[Kind, ...] = ("golden", "beir")


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
            if not isinstance(record, dict) or record.get("kind") != kind or not isinstance(record.get("results"), dict):
                raise ValueError("not a ragctl eval result")
            found[kind] = record
        except (OSError, ValueError) as exc:
            found[kind] = {"kind": kind, "error": f"{path}: {exc}"}
    return found
