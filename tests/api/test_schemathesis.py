"""Schemathesis against the real app under uvicorn on 127.0.0.1, with every built-in check.

Positive and negative cases for every operation, on the SQLite engine with demo data: any 5xx, any
status or body the OpenAPI schema does not document, a valid request refused or an invalid one
accepted, fails the test. Rules across fields are in the schema (oneOf/anyOf); the few it cannot state
are named per operation (x-rules-beyond-schema), and only those operations may refuse a schema-valid
request with 422. Bounded: a few examples per operation, no shrinking.
(The schema is read from the app at import; `schemathesis.pytest.from_fixture` would read it from
the server, but its lazy runner does not work under pytest 9.)
"""

from __future__ import annotations

import re

import pytest
import schemathesis

from app import demo_data
from app.api.main import create_app
from app.api.schemas import BEYOND_SCHEMA
from app.config import Settings
from app.services.demo import seed
from app.worker import Worker

from .conftest import TOKEN
from .servers import serve

CHECKS = {"headers": {"Authorization": f"Bearer {TOKEN}"},
          "generation": {"mode": "all", "max-examples": 5, "no-shrink": True, "deterministic": True}}


def _settings(database_url: str) -> Settings:
    return Settings(_env_file=None, database_url=database_url, api_tokens=TOKEN, run_worker=False,
                    backfill_on_startup=False)


OPENAPI = create_app(_settings("sqlite:///unused.db")).openapi()


def beyond_schema_operations(openapi: dict) -> list[dict]:
    """A schema-valid request may get its 422 only from an operation that names the rule JSON Schema cannot
    state (x-rules-beyond-schema: across query parameters, two fields compared, the database's state);
    every other 422 for a schema-valid request is a finding."""
    return [{"include-path-regex": f"^{re.escape(path)}$", "include-method": method.upper(),
             "checks": {"positive_data_acceptance": {
                 "expected-statuses": ["2xx", "3xx", "401", "403", "404", "409", "422", "429", "5xx"]}}}
            for path, operations in openapi["paths"].items() for method, operation in operations.items()
            if operation.get(BEYOND_SCHEMA)]


CONFIG = {**CHECKS, "operations": beyond_schema_operations(OPENAPI)}
schema = schemathesis.openapi.from_dict(OPENAPI, config=schemathesis.Config.from_dict(CONFIG))


@pytest.fixture(scope="module")
def base_url(tmp_path_factory, embedder):
    from app.engines.sqlite.engine import SQLiteEngine

    settings = _settings(f"sqlite:///{tmp_path_factory.mktemp('schemathesis')}/rag.db")
    engine = SQLiteEngine.open(settings, embedder=embedder)
    try:
        engine.migrate()
        seed(engine, demo_data.build(tasks=6))
        Worker(engine, settings).run_once()
        with serve(create_app(settings, engine=engine), timeout_graceful_shutdown=2) as url:
            yield url
    finally:
        engine.close()


@schema.parametrize()
def test_the_api_conforms_to_its_openapi_schema(case, base_url):
    case.call_and_validate(base_url=base_url)


def test_only_operations_that_name_a_rule_beyond_the_schema_may_refuse_schema_valid_input():
    named = {(op["include-method"], op["include-path-regex"]) for op in beyond_schema_operations(OPENAPI)}
    # The record lists (a cursor only this server issues), the asker's endpoints (who asks depends on the token:
    # a token bound to one employee names nobody), the dated creates and updates, the erasing delete, a project's
    # members (a cursor only this server issues).
    assert len(named) == 22, sorted(named)
    assert ("GET", "^/api/v1/projects/\\{project_id\\}/members$") in named
    assert ("POST", "^/api/v1/tasks$") not in named and ("GET", "^/api/v1/tasks/\\{row_id\\}$") not in named
    chat = OPENAPI["components"]["schemas"]["ChatRequest"]
    assert chat["not"] and len(chat["allOf"]) == 2  # at most one asker; scope and pin only when starting
