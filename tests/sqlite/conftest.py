"""SQLite-only fixtures."""

from __future__ import annotations

import pytest

from app.engines.sqlite.engine import SQLiteEngine


@pytest.fixture
def other_engine(sqlite_engine, embedder):
    """Another engine on the same file: stands in for a second process (`ragctl worker`)."""
    engine = SQLiteEngine(sqlite_engine.path, embedder)
    yield engine
    engine.close()
