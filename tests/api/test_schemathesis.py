"""Schemathesis against the real app under uvicorn on 127.0.0.1, with every built-in check.

Positive and negative cases for every operation, on the SQLite engine with demo data: any 5xx, any
status or body the OpenAPI schema does not document, a valid request refused or an invalid one
accepted, fails the test. Bounded: a few examples per operation, no shrinking.
(The schema is read from the app at import; `schemathesis.pytest.from_fixture` would read it from
the server, but its lazy runner does not work under pytest 9.)
"""

from __future__ import annotations

import pytest
import schemathesis

from app import demo_data
from app.api.main import create_app
from app.config import Settings
from app.services.demo import seed
from app.worker import Worker

from .conftest import TOKEN
from .servers import serve

CONFIG = {
    "headers": {"Authorization": f"Bearer {TOKEN}"},
    "generation": {"mode": "all", "max-examples": 5, "no-shrink": True, "deterministic": True},
    # "end_date before start_date" is a rule across two fields, which JSON Schema cannot state: a
    # schema-valid project or sprint may still get its 422.
    # Likewise an employee's DELETE: the document flags apply only with erase=true, a rule across
    # query parameters.
    "operations": [{
        "include-path-regex": "^/api/v1/(projects|sprints)",
        "checks": {"positive_data_acceptance": {
            "expected-statuses": ["2xx", "3xx", "401", "403", "404", "409", "422", "429", "5xx"]}},
    }, {
        # A chat's or a conversation's rag_scope must name a project that exists *now* (database state),
        # and rag_scope/pinned apply only without a conversation_id (a rule across fields); who asks
        # (employee_id or telegram_id) is required unless the token is bound to one employee, a rule
        # across the token and the request: a schema-valid request may still get its 422.
        "include-path-regex": "^/api/v1/(chat|conversations|search)",
        "checks": {"positive_data_acceptance": {
            "expected-statuses": ["2xx", "3xx", "401", "403", "404", "409", "422", "429", "5xx"]}},
    }, {
        # A list's cursor is opaque: only one this server issued for the same list and filters is valid,
        # which no pattern can say (a well-formed but invented cursor is a 422).
        "include-path-regex": "^/api/v1/[a-z]+$",
        "include-method": "GET",
        "checks": {"positive_data_acceptance": {
            "expected-statuses": ["2xx", "3xx", "401", "403", "404", "409", "422", "429", "5xx"]}},
    }, {
        "include-path-regex": "^/api/v1/employees/",
        "include-method": "DELETE",
        "checks": {"positive_data_acceptance": {
            "expected-statuses": ["2xx", "3xx", "401", "403", "404", "409", "422", "429", "5xx"]}},
    }],
}


def _settings(database_url: str) -> Settings:
    return Settings(_env_file=None, database_url=database_url, api_tokens=TOKEN, run_worker=False,
                    backfill_on_startup=False)


schema = schemathesis.openapi.from_dict(create_app(_settings("sqlite:///unused.db")).openapi(),
                                        config=schemathesis.Config.from_dict(CONFIG))


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
