"""DELETE /api/v1/employees/{id}: the plain delete as before, and ?erase=true with its job and proof; the
scenario of issue 20, point 1, replayed as written."""

from __future__ import annotations

from pathlib import Path

from app.engines.sqlite.erasure import FILES
from app.entities import TASKS
from app.services.records import iter_records
from tests.fake_llm import FakeLLM, Reply

from .chat_data import client_for, llm_settings
from .conftest import AUTH


def post(client, name, body):
    response = client.post(f"/api/v1/{name}", json=body, headers=AUTH)
    assert response.status_code == 201, response.text
    return response.json()


def seed(client):
    ana = post(client, "employees", {"first_name": "Zorbalina", "last_name": "Quixotewick", "email": "zq@example.com",
                                     "role": "DEVELOPER", "telegram_id": "tg_778899"})
    boss = post(client, "employees", {"first_name": "Mia", "last_name": "Boss", "email": "mia@example.com", "role": "MANAGER"})
    t = post(client, "tasks", {"title": "Payroll export failure", "assignee_id": ana["employee_id"]})
    post(client, "comments", {"task_id": t["task_id"], "author_id": ana["employee_id"],
                              "body": "Flibbertigibbet rounding in the export"})
    doc = post(client, "documents", {"title": "Hyperborean payroll runbook", "body": "Quantum soufflé checklist for "
                                     "the payroll export", "owner_employee_id": ana["employee_id"]})
    return ana["employee_id"], boss["employee_id"], doc["document_id"]


def delete(client, employee_id, **params):
    return client.delete(f"/api/v1/employees/{employee_id}", params=params, headers=AUTH)


def test_erase_deleting_documents_answers_the_job_and_its_proof(client):
    ana, _, doc = seed(client)
    response = delete(client, ana, erase="true", delete_documents="true")
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["ok"] is True and body["failures"] == [] and body["finished"] and body["verdict"] == "proven"
    assert body["erased"]["documents_deleted"] == [doc] and "texts" not in body["erased"]
    assert {v["verdict"] for v in body["verdicts"]} == {"erased"} and body["bytes_left"] == 0
    assert any(line["where"] == "raw bytes of rag.db" for line in body["proof"])
    assert {s["label"] for s in body["searched"]} >= {"full name", "email", "telegram id"}
    assert "Zorbalina" not in response.text and "Flibbertigibbet" not in response.text
    assert client.get(f"/api/v1/employees/{ana}", headers=AUTH).status_code == 404
    assert client.get(f"/api/v1/documents/{doc}", headers=AUTH).status_code == 404
    again = delete(client, ana, erase="true")  # the same DELETE again: the finished job, reported
    assert again.status_code == 200 and again.json()["steps_run"] == [] and again.json()["ok"] is True


def test_erase_reassigning_documents(client):
    ana, boss, doc = seed(client)
    response = delete(client, ana, erase="true", reassign_documents_to=boss)
    assert response.status_code == 200 and response.json()["erased"]["documents_reassigned"] == [doc]
    assert client.get(f"/api/v1/documents/{doc}", headers=AUTH).json()["owner_employee_id"] == boss


def test_erase_without_a_document_flag_is_409_naming_the_flags_and_changes_nothing(client):
    ana, _, _ = seed(client)
    response = delete(client, ana, erase="true")
    assert response.status_code == 409
    assert "delete_documents=true" in response.json()["detail"] and "reassign_documents_to" in response.json()["detail"]
    assert client.get(f"/api/v1/employees/{ana}", headers=AUTH).status_code == 200


def test_bad_erase_requests_are_4xx(client):
    ana, boss, _ = seed(client)
    assert delete(client, ana, delete_documents="true").status_code == 422  # flags need erase=true
    assert delete(client, ana, erase="true", delete_documents="true", reassign_documents_to=boss).status_code == 422
    assert delete(client, ana, erase="true", reassign_documents_to=999_999).status_code == 422
    assert delete(client, ana, erase="true", reassign_documents_to=0).status_code == 422
    assert delete(client, 999_999, erase="true", delete_documents="true").status_code == 404
    assert client.get(f"/api/v1/employees/{ana}", headers=AUTH).status_code == 200


def test_the_plain_delete_is_unchanged(client):
    ana, boss, _ = seed(client)
    assert delete(client, ana).status_code == 409  # owns a document: not published by a delete
    lone = post(client, "employees", {"first_name": "Solo", "last_name": "One", "email": "solo@example.com", "role": "DEVELOPER"})["employee_id"]
    assert delete(client, lone).status_code == 204 and delete(client, lone).status_code == 404
    assert client.delete(f"/api/v1/employees/{boss}").status_code == 401  # still behind the token


def test_a_copy_out_of_reach_is_500_with_the_proof_and_the_same_delete_finishes_it_later(client, sqlite_engine):
    ana, _, _ = seed(client)
    # A chunk of a task that no longer exists still names her: nothing the erasure does reaches it.
    sqlite_engine.conn.execute("INSERT INTO RAG_CHUNK (SOURCE_TYPE, SOURCE_ID, CHUNK_IX, CONTENT, CONTENT_HASH, AUDIENCE) "
                               "VALUES ('task', 999, 0, 'Ask Zorbalina Quixotewick', 'x', -1)")
    response = delete(client, ana, erase="true", delete_documents="true")
    assert response.status_code == 500
    body = response.json()
    assert body["ok"] is False and body["verdict"] == "not proven" and body["step"] == "delete"
    assert body["failures"][0].startswith("full name [") and "chunk table RAG_CHUNK" in body["failures"][0]
    assert client.get(f"/api/v1/employees/{ana}", headers=AUTH).status_code == 404  # gone, the job stays
    sqlite_engine.conn.execute("DELETE FROM RAG_CHUNK WHERE SOURCE_ID = 999")
    finished = delete(client, ana, erase="true")
    assert finished.status_code == 200, finished.text
    assert finished.json()["ok"] and finished.json()["steps_run"][0] == "reindex"


def test_issue_20_point_1_a_managers_chat_quoting_the_assignee_then_erase_leaves_0_bytes(
        sqlite_settings, sqlite_engine):
    """A manager asks the chat who is assigned to the payroll export failure and the answer quotes the
    assignee; then DELETE ?erase=true&delete_documents=true answers 200 and no byte of her strings is left
    in the database files (read here, independently of the proof)."""
    answer = "The payroll export failure is assigned to Zorbalina Quixotewick (zq@example.com)."
    with FakeLLM(Reply.plain(answer)) as llm, \
            client_for(sqlite_settings, sqlite_engine, **llm_settings(llm, chat_max_tool_rounds=0)) as c:
        ana, boss, _ = seed(c)
        from tests.support import drain_all

        drain_all(sqlite_engine)
        # The question names the task by its title: its card is the computed answer, which the reply keeps.
        (task,) = [t["task_id"] for t in iter_records(sqlite_engine, TASKS) if t["title"] == "Payroll export failure"]
        llm.script = [Reply.plain(answer.replace("failure is", f"failure [TASK #{task}] is"))]
        chat = c.post("/api/v1/chat", json={"employee_id": boss,
                                            "message": "who is assigned to the payroll export failure?"}, headers=AUTH)
        assert chat.status_code == 200 and "Zorbalina Quixotewick" in chat.json()["answer"]
        conversation = chat.json()["conversation_id"]
        response = delete(c, ana, erase="true", delete_documents="true")
        assert response.status_code == 200, response.text
        body = response.json()
    assert body["bytes_left"] == 0 and body["ok"]
    redacted = {x["where"]: x["copies"] for x in body["redacted"]}
    assert redacted["MESSAGES.CONTENT"] == 2  # her name and her email, in the manager's stored answer
    question, answer = sqlite_engine.list_messages(conversation, None, 10).items  # as stored (the API may withdraw it)
    assert answer.content == f"The payroll export failure [TASK #{task}] is assigned to [erased] ([erased])."
    assert question.content == "who is assigned to the payroll export failure?"
    strings = ["Zorbalina Quixotewick", "zq@example.com", "tg_778899", "Flibbertigibbet rounding in the export",
               "Hyperborean payroll runbook", "Quantum soufflé checklist for the payroll export"]
    left = 0
    for suffix in FILES:
        path = Path(sqlite_engine.path + suffix)
        data = path.read_bytes() if path.exists() else b""
        left += sum(data.count(v.encode()) * len(v.encode()) + data.count(v.lower().encode()) * len(v.encode())
                    for v in strings)
    assert left == 0
