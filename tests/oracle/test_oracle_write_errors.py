"""Oracle errors a client or an operator must be able to act on, raised by the recording fake.

ORA-12899 / ORA-01461 (text too long for its column) are the client's input: a 422 naming the field,
nothing written. ORA-24247 while loading the model is the operator's: bootstrap says which grant is missing.
"""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from app.api.main import create_app
from app.engines.base import EngineError, ValueTooLongError
from app.engines.oracle.engine import OracleEngine
from app.entities import SPRINTS, TASKS

from .fakes import FakePool, Reply, golden, ora_error

TOKEN = "oracle-test-token"
GOAL_TOO_LARGE = 'value too large for column "APP"."SPRINTS"."GOAL" (actual: 4500, maximum: 4000)'
LONG_BIND = "can bind a LONG value only for insert into a LONG column"


def test_ora_12899_names_the_column_as_the_field_and_rolls_back(fake_engine, conn):
    conn.replies.append(("INSERT INTO SPRINTS", Reply(error=ora_error(12899, GOAL_TOO_LARGE))))
    with pytest.raises(ValueTooLongError) as caught:
        fake_engine.create(SPRINTS, {"NAME": "S1", "GOAL": "好" * 1500})
    assert caught.value.field == "goal"
    assert "sprints goal is too long" in str(caught.value) and "actual length 4500, maximum 4000" in str(caught.value)
    assert '"APP"' not in str(caught.value)  # the schema's name is not the client's business
    assert conn.events == ["rollback"]


def test_ora_01461_blames_the_one_long_text_bound_into_a_varchar2(fake_engine, conn):
    # DESCRIPTION is a CLOB and may be long; TITLE is a VARCHAR2: only TITLE can be the culprit.
    conn.replies.append(("UPDATE TASKS", Reply(error=ora_error(1461, LONG_BIND))))
    with pytest.raises(ValueTooLongError) as caught:
        fake_engine.update(TASKS, 3, {"TITLE": "x" * 40_000, "DESCRIPTION": "y" * 40_000})
    assert caught.value.field == "title" and "ORA-01461" in str(caught.value)
    assert conn.events == ["rollback"]


def test_ora_01461_with_no_single_suspect_names_no_field(fake_engine, conn):
    conn.replies.append(("INSERT INTO SPRINTS", Reply(error=ora_error(1461, LONG_BIND))))
    with pytest.raises(ValueTooLongError) as caught:
        fake_engine.create(SPRINTS, {"NAME": "n" * 5000, "GOAL": "g" * 5000})
    assert caught.value.field is None and "a text value of sprints" in str(caught.value)


def test_ora_14699_is_the_same_too_long_value_as_ora_01461(fake_engine, conn):
    """REVIEW-3 U4: the 26ai catalogue has ORA-14699 "long bind value is too large for column" (past 4,000 bytes
    for a VARCHAR2): the client's input too, a 422 naming the field, never a 500; and never an upsert form refusal."""
    from app.engines.oracle import upsert

    conn.replies.append(("UPDATE TASKS", Reply(error=ora_error(14699, "long bind value is too large for column"))))
    with pytest.raises(ValueTooLongError) as caught:
        fake_engine.update(TASKS, 3, {"TITLE": "x" * 5000, "DESCRIPTION": "y" * 40_000})
    assert caught.value.field == "title" and "ORA-14699" in str(caught.value)
    assert conn.events == ["rollback"]
    assert not upsert.form_refused(ora_error(14699, "long bind value is too large for column"))


@pytest.fixture
def oracle_client(conn, settings):
    app_settings = settings.model_copy(update={"api_tokens": SecretStr(TOKEN), "run_worker": False,
                                               "backfill_on_startup": False})
    engine = OracleEngine(FakePool(conn), app_settings)
    with TestClient(create_app(app_settings, engine=engine), raise_server_exceptions=False) as client:
        yield client


def test_the_api_answers_a_too_long_value_with_a_422_naming_the_field(oracle_client, conn):
    from app.engines.oracle.migrate import discover

    auth = {"Authorization": f"Bearer {TOKEN}"}
    conn.replies += [("USER_TABLES", Reply(rows=[(1,)])),  # the API first checks the schema is migrated, once
                     ("FROM RAG_SCHEMA_VERSION", Reply(rows=[(m.version,) for m in discover()]))]
    conn.replies.append(("INSERT INTO SPRINTS", Reply(error=ora_error(12899, GOAL_TOO_LARGE))))
    created = oracle_client.post("/api/v1/sprints", json={"name": "S1", "goal": "ok"}, headers=auth)
    assert created.status_code == 422, created.text
    [error] = created.json()["detail"]
    assert error["loc"] == ["body", "goal"] and error["type"] == "string_too_long"
    assert "maximum 4000" in error["msg"]
    conn.replies.append(("UPDATE TASKS", Reply(error=ora_error(1461, LONG_BIND))))
    patched = oracle_client.patch("/api/v1/tasks/3", json={"title": "t", "description": "d"}, headers=auth)
    assert patched.status_code == 422 and patched.json()["detail"][0]["loc"] == ["body"]  # no single suspect
    assert [c.sql.split()[0] for c in conn.calls] == ["SELECT", "SELECT", "INSERT", "UPDATE"]
    assert conn.events == ["rollback"] * 2


# --- ORA-24247: LOAD_ONNX_MODEL_CLOUD without a network ACL (FACTS.md §12.7) ----------------------

PAR = "https://objectstorage.us-ashburn-1.oraclecloud.com/p/SECRET-TOKEN/n/ns/b/models/o/all_MiniLM_L12_v2.onnx"


@pytest.mark.parametrize("error", [
    ora_error(24247, "network access denied by access control list (ACL)"),
    # How UTL_HTTP-based calls usually report it: the ACL error below an HTTP failure.
    ora_error(29273, "HTTP request failed\nORA-24247: network access denied by access control list (ACL)"),
])
def test_bootstrap_says_which_network_acl_the_dba_must_grant(monkeypatch, conn, settings, error):
    from app.services import oracle_admin

    engine = OracleEngine(FakePool(conn), settings.model_copy(update={"onnx_model_url": SecretStr(PAR)}))
    monkeypatch.setattr(OracleEngine, "open", classmethod(lambda cls, s: engine))
    monkeypatch.setattr(engine, "migrate", lambda: [])
    conn.replies += [("USER_MINING_MODELS", Reply(rows=[(0,)])), ("LOAD_ONNX_MODEL_CLOUD", Reply(error=error))]
    with pytest.raises(EngineError) as caught:
        oracle_admin.bootstrap(settings)
    message = str(caught.value)
    assert conn.calls[1].sql == golden("load_model_cloud")
    assert "ORA-24247" in message and "DBMS_NETWORK_ACL_ADMIN.APPEND_HOST_ACE(" in message
    assert "host => 'objectstorage.us-ashburn-1.oraclecloud.com'" in message
    assert "principal_name => 'APP'" in message and "verify on your first database" in message
    assert "SECRET-TOKEN" not in message  # the pre-authenticated URL's path is a credential


def test_other_model_load_failures_keep_the_general_advice(fake_engine, conn, settings):
    engine = OracleEngine(FakePool(conn), settings.model_copy(update={"onnx_model_url": SecretStr(PAR)}))
    conn.replies += [("USER_MINING_MODELS", Reply(rows=[(0,)])),
                     ("LOAD_ONNX_MODEL_CLOUD", Reply(error=ora_error(29273, "HTTP request failed")))]
    with pytest.raises(EngineError) as caught:
        engine.ensure_model()
    assert "APPEND_HOST_ACE" not in str(caught.value) and "RAG_ONNX_MODEL_URL" in str(caught.value)
