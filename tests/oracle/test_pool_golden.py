"""The connection pool never makes a caller wait forever (REVIEW-2 W3): python-oracledb's default getmode waits
until a connection is free; the engine asks for POOL_GETMODE_TIMEDWAIT with RAG_ORACLE_POOL_WAIT_TIMEOUT_MS, and
the DPY-4005 that ends the wait is a 503 with Retry-After, like every other "not now" fault. A connection lost in
mid-request (thin: DPY-4011, code 0), a full TEMP and a call past its timeout are too (REVIEW-3 W2, W3, W4)."""

from __future__ import annotations

import oracledb
import pytest
from fastapi.testclient import TestClient
from oracledb import errors as driver  # the driver's own error builder (_raise_err): real DPY errors, code 0
from pydantic import SecretStr

from app.api.main import create_app
from app.engines.base import UnavailableError
from app.engines.oracle.engine import OracleEngine
from app.entities import TASKS

from .fakes import FakeConnection, FakePool, Reply, dpy_error, ora_error

SATURATED = dpy_error(4005, "timed out waiting for the connection pool to return a connection")


def test_the_pool_waits_a_bounded_time_for_a_connection(monkeypatch, settings):
    created = {}

    def create_pool(**kwargs):
        created.update(kwargs)
        return FakePool(FakeConnection())

    monkeypatch.setattr(oracledb, "create_pool", create_pool)
    engine = OracleEngine.open(settings.model_copy(update={"oracle_pool_wait_timeout_ms": 750, "oracle_pool_max": 6}))
    assert created["getmode"] == oracledb.POOL_GETMODE_TIMEDWAIT and created["wait_timeout"] == 750
    assert (created["min"], created["max"]) == (1, 6)
    engine.close()


def test_the_default_wait_is_five_seconds(settings):
    assert settings.oracle_pool_wait_timeout_ms == 5000


def test_a_saturated_pool_is_unavailable_with_a_short_retry_after(settings):
    engine = OracleEngine(FakePool(FakeConnection(), acquire_error=SATURATED), settings)
    with pytest.raises(UnavailableError) as caught:
        engine.get(TASKS, 1)
    assert caught.value.retry_after_s == 2
    assert "RAG_ORACLE_POOL_WAIT_TIMEOUT_MS=5000" in str(caught.value) and "DPY-4005" in str(caught.value)


def test_dpy_4005_says_a_new_connection_may_not_have_opened_in_time_and_shows_the_pool_counts(settings):
    """REVIEW-3 W4: TIMEDWAIT also times out a connection still being created (an empty pool gets DPY-4005 too), so
    the message must not blame busy connections alone; the pool's busy/opened counts tell the two apart."""
    pool = FakePool(FakeConnection(), acquire_error=SATURATED)
    pool.busy, pool.opened = 0, 0  # nothing opened at all: the database, not the pool size, is the problem
    with pytest.raises(UnavailableError) as caught:
        OracleEngine(pool, settings).get(TASKS, 1)
    message = str(caught.value)
    assert "a new one could not be opened in time" in message and "0 busy of 0 opened" in message
    assert "stayed busy" not in message


def test_dpy_4005_reads_busy_opened_and_max_and_names_a_pool_grown_past_max(settings):
    """REVIEW-4 W2: with the 4.0.1 floor, a saturated pool shows busy == opened == max; a pool opened past its max is
    python-oracledb issue 581 (thin TIMEDWAIT before 4.0.1), and the message says so instead of blaming the load."""
    engine_settings = settings.model_copy(update={"oracle_pool_max": 4})
    pool = FakePool(FakeConnection(), acquire_error=SATURATED)
    pool.busy, pool.opened = 4, 4
    with pytest.raises(UnavailableError) as caught:
        OracleEngine(pool, engine_settings).get(TASKS, 1)
    assert "all 4 busy" in str(caught.value) and "4 busy of 4 opened, max 4" in str(caught.value)
    assert "issue 581" not in str(caught.value)
    pool.busy, pool.opened = 4, 12
    with pytest.raises(UnavailableError) as caught:
        OracleEngine(pool, engine_settings).get(TASKS, 1)
    assert "4 busy of 12 opened, max 4; more opened than max" in str(caught.value)
    assert "issue 581" in str(caught.value) and "4.0.1" in str(caught.value)


@pytest.mark.parametrize("version, below", [("3.4.2", True), ("3.0.0", True), ("4.0.0", True), ("4.0.1", False),
                                            ("4.0.2", False), ("4.1.0rc1", False), ("26.1.0", False), ("4", True),
                                            ("", True), ("4.0.1.dev3", False)])
def test_the_driver_floor_is_4_0_1(version, below):
    from app.engines.oracle.errors import driver_below_floor

    assert driver_below_floor(version) is below


def test_pyproject_requires_the_driver_floor_and_the_installed_driver_meets_it():
    import re
    import tomllib
    from pathlib import Path

    from app.engines.oracle.errors import DRIVER_FLOOR, driver_below_floor

    deps = tomllib.loads(Path(__file__).parents[2].joinpath("pyproject.toml").read_text())["project"]["dependencies"]
    (floor,) = [re.fullmatch(r"oracledb>=([\d.]+)", d)[1] for d in deps if d.startswith("oracledb")]
    assert tuple(int(p) for p in floor.split(".")) == DRIVER_FLOOR
    assert not driver_below_floor(oracledb.__version__)


def driver_error(number: int, **args) -> oracledb.Error:
    """The exception python-oracledb itself raises for a driver error (its own builder: code 0, DPY-nnnn)."""
    try:
        driver._raise_err(number, **args)
    except oracledb.Error as exc:
        return exc
    raise AssertionError(f"DPY-{number} was not raised")


@pytest.mark.parametrize("number, args, retry_after_s", [
    (driver.ERR_CONNECTION_CLOSED, {}, 10),  # the socket read EOF: a restart or a network cut mid-request
    (driver.ERR_NOT_CONNECTED, {}, 10),
    (driver.ERR_CALL_TIMEOUT_EXCEEDED, {"timeout": 60000}, 5),  # REVIEW-3 W3: the call timeout
])
def test_a_connection_lost_mid_request_is_a_503_with_retry_after_not_a_500(settings, number, args, retry_after_s):
    """REVIEW-3 W2: thin mode reports a dropped connection as DPY-4011 with code 0, which the ORA map never read."""
    lost = driver_error(number, **args)
    assert lost.args[0].code == 0 and lost.args[0].full_code == f"DPY-{number:04d}"
    conn = FakeConnection([("FROM TASKS", Reply(error=lost))])
    app_settings = settings.model_copy(update={"api_tokens": SecretStr("t"), "run_worker": False,
                                               "backfill_on_startup": False})
    engine = OracleEngine(FakePool(conn), app_settings)
    with pytest.raises(UnavailableError) as caught:
        engine.get(TASKS, 1)
    assert caught.value.retry_after_s == retry_after_s and f"DPY-{number:04d}" in str(caught.value)
    assert conn.events == ["rollback"]  # and the connection went back to the pool
    conn.replies.append(("FROM TASKS", Reply(error=lost)))
    with TestClient(create_app(app_settings, engine=engine), raise_server_exceptions=False) as client:
        answer = client.get("/api/v1/tasks/1", headers={"Authorization": "Bearer t"})
    assert answer.status_code == 503 and answer.headers["Retry-After"] == str(retry_after_s)


def test_temp_full_is_a_503_beside_the_other_full_tablespaces(settings):
    """REVIEW-3 W2: ORA-01652 (unable to extend temp segment: temporary LOBs, sorts) means "retry later"."""
    conn = FakeConnection([("FROM TASKS", Reply(error=ora_error(1652, "unable to extend temp segment by 128")))])
    with pytest.raises(UnavailableError) as caught:
        OracleEngine(FakePool(conn), settings).get(TASKS, 1)
    assert "TEMP" in str(caught.value) and caught.value.retry_after_s == 30


def test_every_pooled_connection_carries_the_call_timeout_and_admin_commands_are_not_cut(settings):
    """REVIEW-3 W3: no statement had a call timeout, so a stuck lock wait held a pooled connection for ever."""
    conn = FakeConnection([("USER_MINING_MODELS", Reply(rows=[(1,)]))])
    engine = OracleEngine(FakePool(conn), settings.model_copy(update={"oracle_call_timeout_ms": 1234}))
    engine.get(TASKS, 1)
    engine.ensure_model()  # an operator's command: a model download may take minutes
    engine.get(TASKS, 2)
    assert [c.call_timeout for c in conn.calls] == [1234, 0, 1234]


def test_the_default_call_timeout_is_a_minute(settings):
    assert settings.oracle_call_timeout_ms == 60_000


def test_a_listener_that_is_down_is_still_the_ten_second_retry(settings):
    engine = OracleEngine(FakePool(FakeConnection(), acquire_error=ora_error(12541, "TNS:no listener")), settings)
    with pytest.raises(UnavailableError) as caught:
        engine.get(TASKS, 1)
    assert caught.value.retry_after_s == 10 and "cannot get an Oracle connection" in str(caught.value)


def test_the_api_answers_a_saturated_pool_with_503_and_retry_after(settings):
    app_settings = settings.model_copy(update={"api_tokens": SecretStr("t"), "run_worker": False,
                                               "backfill_on_startup": False})
    engine = OracleEngine(FakePool(FakeConnection(), acquire_error=SATURATED), app_settings)
    with TestClient(create_app(app_settings, engine=engine), raise_server_exceptions=False) as client:
        answer = client.get("/api/v1/tasks/1", headers={"Authorization": "Bearer t"})
    assert answer.status_code == 503 and answer.headers["Retry-After"] == "2"
    assert "RAG_ORACLE_POOL_WAIT_TIMEOUT_MS" in answer.json()["detail"]


def test_operator_work_has_its_own_bound_and_a_worker_batch_one_that_grows_with_it(settings, conn):
    """REVIEW-4 U3: a forced backfill's INSERT ... SELECT over every source, the erasure's redaction and proof scans
    ran under the API's 60 s: on a large schema an erasure could never reach "proven". They get
    RAG_ORACLE_OPERATOR_CALL_TIMEOUT_MS; a worker batch gets RAG_BATCH_SIZE x 500 ms within the two bounds."""
    from app.rag.erasure import PersonString

    tuned = settings.model_copy(update={"oracle_call_timeout_ms": 1234, "oracle_operator_call_timeout_ms": 700_000})
    engine = OracleEngine(FakePool(conn), tuned)
    lone = PersonString("first name", "Zqx", bounded=True, conversations_only=True)
    marks = []
    for action in (lambda: engine.enqueue_backfill(("task",), dry_run=True),  # not forced: the API's bound
                   lambda: engine.redact_copies([lone]), lambda: engine.erasure_proof([lone]),
                   lambda: engine.get(TASKS, 1)):
        conn.calls.clear()
        action()
        marks.append({c.call_timeout for c in conn.calls})
    assert marks == [{1234}, {700_000}, {700_000}, {1234}]
    for batch_size, limit, bound in ((32, 700_000, 16_000), (1, 700_000, 1234), (1000, 700_000, 500_000),
                                     (1000, 400_000, 400_000)):
        engine = OracleEngine(FakePool(conn), tuned.model_copy(update={"batch_size": batch_size,
                                                                       "oracle_operator_call_timeout_ms": limit}))
        conn.calls.clear()
        with engine.indexing() as tx:
            tx.claim(1, 5)
        assert conn.calls and {c.call_timeout for c in conn.calls} == {bound}, (batch_size, limit)


def test_operator_work_cut_by_its_bound_says_which_work_stopped_and_which_setting_bounds_it(settings):
    from app.rag.erasure import PersonString

    timeout = driver_error(driver.ERR_CALL_TIMEOUT_EXCEEDED, timeout=900_000)
    conn = FakeConnection([("SELECT MESSAGE_ID, CONTENT FROM MESSAGES", Reply(error=timeout))])
    engine = OracleEngine(FakePool(conn), settings)
    with pytest.raises(UnavailableError) as caught:
        engine.redact_copies([PersonString("full name", "Ana Silva", bounded=True)])
    message = str(caught.value)
    assert message.startswith("the erasure's redaction (RAG_ORACLE_OPERATOR_CALL_TIMEOUT_MS) stopped: one call ran "
                              "past its call timeout of 900000 ms") and "DPY-4024" in message
    assert caught.value.retry_after_s == 5 and conn.events == ["rollback"]
    conn.replies.append(("FROM TASKS", Reply(error=timeout)))  # the API's own calls keep their plain 503
    with pytest.raises(UnavailableError) as caught:
        engine.get(TASKS, 1)
    assert "stopped" not in str(caught.value) and "DPY-4024" in str(caught.value)
