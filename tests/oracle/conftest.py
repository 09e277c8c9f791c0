"""Fixtures for the Oracle golden tests: the engine over a recording fake of python-oracledb."""

from __future__ import annotations

import pytest

from app.config import Settings
from app.engines.oracle.engine import OracleEngine

from .fakes import FakeConnection, FakePool


@pytest.fixture
def settings() -> Settings:
    return Settings(database_url="oracle://app:apppw@localhost:1521/FREEPDB1", max_attempts=5)


@pytest.fixture
def conn() -> FakeConnection:
    return FakeConnection()


@pytest.fixture
def fake_engine(conn, settings) -> OracleEngine:
    return OracleEngine(FakePool(conn), settings)
