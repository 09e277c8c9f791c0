"""API fixtures: the real app (lifespan included) over the real SQLite engine, worker off."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from app.api.main import create_app
from app.config import Settings

TOKEN = "test-token"  # tests/conftest.py's sqlite_settings sets RAG_API_TOKENS to this
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture
def api_settings(sqlite_settings):
    return sqlite_settings.model_copy(update={"run_worker": False, "backfill_on_startup": False})


@pytest.fixture
def client(api_settings, sqlite_engine):
    """No default Authorization header: each test says which token it sends."""
    with TestClient(create_app(api_settings, engine=sqlite_engine), raise_server_exceptions=False) as c:
        yield c


@pytest.fixture(scope="module")
def demo(demo_db):
    """The demo data (app/demo_data.py) seeded and indexed through the real write path: the module's own copy
    of the session's seeded database (tests/conftest.py's demo_db), (engine, settings)."""
    base = Settings(_env_file=None, api_tokens=TOKEN, run_worker=False, backfill_on_startup=False)
    with demo_db(base) as (engine, settings):
        yield engine, settings


@pytest.fixture(scope="module")
def offline(demo):
    """The app over the demo data, no LLM."""
    from tests.api.chat_data import demo_app

    with TestClient(demo_app(demo), raise_server_exceptions=False) as c:
        yield c


@pytest.fixture(scope="module", params=["offline", "honest", "inventing"])
def face(request, demo):
    """The app over the demo data offline, and with the loopback LLM honest and inventing (its answers are checked
    against the same truths)."""
    from app.evals.loopback_llm import LoopbackLLM
    from tests.api.chat_data import demo_app, llm_settings

    if request.param == "offline":
        with TestClient(demo_app(demo), raise_server_exceptions=False) as c:
            yield c
        return
    with LoopbackLLM(request.param) as llm, TestClient(demo_app(demo, **llm_settings(llm)),
                                                       raise_server_exceptions=False) as c:
        yield c
