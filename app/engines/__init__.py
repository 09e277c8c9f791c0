"""Engine selection from RAG_DATABASE_URL. Engine modules are imported lazily so the SQLite
path never loads python-oracledb's pool and the Oracle path never loads ONNX Runtime."""

from __future__ import annotations

from app.config import Settings
from app.engines.base import Engine


def open_engine(settings: Settings) -> Engine:
    if settings.engine == "sqlite":
        from app.engines.sqlite.engine import SQLiteEngine

        return SQLiteEngine.open(settings)
    from app.engines.oracle.engine import OracleEngine

    return OracleEngine.open(settings)
