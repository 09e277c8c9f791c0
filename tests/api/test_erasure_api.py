"""DELETE /api/v1/employees/{id}: the plain delete as before, and ?erase=true with its proof."""

from __future__ import annotations

from .conftest import AUTH


def post(client, name, body):
    response = client.post(f"/api/v1/{name}", json=body, headers=AUTH)
    assert response.status_code == 201, response.text
    return response.json()


def seed(client):
    ana = post(client, "employees", {"first_name": "Zorbalina", "last_name": "Quixotewick", "email": "zq@example.com", "role": "DEVELOPER"})
    boss = post(client, "employees", {"first_name": "Mia", "last_name": "Boss", "email": "mia@example.com", "role": "MANAGER"})
    t = post(client, "tasks", {"title": "Fix login", "assignee_id": ana["employee_id"]})
    post(client, "comments", {"task_id": t["task_id"], "author_id": ana["employee_id"], "body": "Flibbertigibbet"})
    doc = post(client, "documents", {"title": "Hyperborean plan", "body": "Souffle", "owner_employee_id": ana["employee_id"]})
    return ana["employee_id"], boss["employee_id"], doc["document_id"]


def delete(client, employee_id, **params):
    return client.delete(f"/api/v1/employees/{employee_id}", params=params, headers=AUTH)


def test_erase_deleting_documents_answers_the_proof(client):
    ana, _, doc = seed(client)
    response = delete(client, ana, erase="true", delete_documents="true")
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["ok"] is True and body["failures"] == []
    assert body["erased"]["documents_deleted"] == [doc] and "texts" not in body["erased"]
    assert {v["verdict"] for v in body["verdicts"]} == {"erased"}
    assert any(line["where"] == "raw bytes of rag.db" for line in body["proof"])
    assert "Zorbalina" not in response.text and "Flibbertigibbet" not in response.text
    assert client.get(f"/api/v1/employees/{ana}", headers=AUTH).status_code == 404
    assert client.get(f"/api/v1/documents/{doc}", headers=AUTH).status_code == 404


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


def test_erase_answers_500_with_the_proof_when_a_string_is_still_found(client, sqlite_engine):
    ana, _, _ = seed(client)
    sqlite_engine.conn.execute("INSERT INTO RAG_DIRTY (SOURCE_TYPE, SOURCE_ID, ACTION, ATTEMPTS, LAST_ERROR) "
                               "VALUES ('task', 999, 'UPSERT', 99, 'boom: Quixotewick')")
    response = delete(client, ana, erase="true", delete_documents="true")
    assert response.status_code == 500
    body = response.json()
    assert body["ok"] is False and body["failures"][0].startswith("last name [")
    assert "queue RAG_DIRTY" in body["failures"][0]
