"""Fixtures for the Oracle golden tests: the engine over a recording fake of python-oracledb."""

from __future__ import annotations

import pytest

from app.config import Settings
from app.engines.oracle import settings_statements as sql
from app.engines.oracle.engine import OracleEngine

from .fakes import FakeConnection, FakePool, Reply

MODEL = "ALL_MINILM_L12_V2"  # the engine's RAG_ORACLE_MODEL_NAME in these tests


@pytest.fixture
def settings() -> Settings:
    return Settings(database_url="oracle://app:apppw@localhost:1521/FREEPDB1", max_attempts=5)


@pytest.fixture
def conn() -> FakeConnection:
    """A database whose vectors are marked as the engine's model (app/engines/oracle/model_mark.py): the mark is read
    before every search and unit of work, and those reads are not what these tests are about, so they are answered
    and not recorded. tests/oracle/test_model_mark_golden.py records them."""
    return FakeConnection(defaults={sql.READ_MODEL_MARK: Reply(rows=[(MODEL, None, 1)])},
                          hidden=frozenset({sql.READ_MODEL_MARK}))


@pytest.fixture
def fake_engine(conn, settings) -> OracleEngine:
    return OracleEngine(FakePool(conn), settings)


@pytest.fixture(autouse=True)
def examples_already_embedded(monkeypatch):
    """The question kinds' examples (app/services/understanding.py) counted as embedded for this engine's model,
    so the API's start-up warm-up sends nothing to the recording fake, whose scripted replies belong to the statements
    under test. Zero vectors: no kind by meaning, the rules alone route (what a model that cannot load gives too)."""
    import numpy as np

    from app.rag import intents
    from app.services import understanding

    texts, _ = intents.example_texts()
    monkeypatch.setitem(understanding._examples, (OracleEngine.__name__, MODEL), np.zeros((len(texts), 384), np.float32))
