"""Shared fixtures. The SQLite engine is always real; the Oracle leg needs RAG_TEST_ORACLE_DSN."""

from __future__ import annotations

import os

import pytest

from app.config import Settings

ORACLE_DSN = os.environ.get("RAG_TEST_ORACLE_DSN")  # e.g. oracle://app:apppw@localhost:1521/FREEPDB1
ORACLE_SKIP_REASON = (
    "RAG_TEST_ORACLE_DSN is not set: the Oracle leg of the conformance suite needs a real Oracle 26ai "
    "(`make test-oracle` runs it against compose.dev.yml: see docs/ORACLE.md)"
)


@pytest.fixture(scope="session")
def embedder():
    """One in-process MiniLM for the whole session: loading ONNX Runtime is the slow part."""
    from app.embedding.onnx_minilm import MiniLMEmbedder

    return MiniLMEmbedder()


@pytest.fixture
def sqlite_settings(tmp_path) -> Settings:
    return Settings(database_url=f"sqlite:///{tmp_path}/rag.db", api_tokens="test-token",
                    eval_results_dir=str(tmp_path / "eval"))


@pytest.fixture
def sqlite_engine(sqlite_settings, embedder):
    from app.engines.sqlite.engine import SQLiteEngine

    engine = SQLiteEngine.open(sqlite_settings, embedder=embedder)
    engine.migrate()
    yield engine
    engine.close()


@pytest.fixture(scope="session")
def oracle_settings() -> Settings:
    if not ORACLE_DSN:
        pytest.skip(ORACLE_SKIP_REASON)
    return Settings(database_url=ORACLE_DSN, api_tokens="test-token")


@pytest.fixture
def oracle_engine(oracle_settings):
    from app.engines.oracle.engine import OracleEngine

    engine = OracleEngine.open(oracle_settings)
    engine.migrate()
    engine.wipe()
    yield engine
    engine.close()


@pytest.fixture(params=["sqlite", pytest.param("oracle", marks=pytest.mark.oracle)])
def engine(request):
    """Both engines behind one contract: the conformance suite runs every test on each."""
    return request.getfixturevalue(f"{request.param}_engine")
