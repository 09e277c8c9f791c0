"""Demo-like data for the chat-surface tests: two projects, three people, tasks and an org-wide document."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from fastapi.testclient import TestClient

from app.api.main import create_app
from app.worker import Worker
from tests.support import comment, document, employee, project, task

AUTH = {"Authorization": "Bearer test-token"}


def seed(engine, settings) -> dict[str, int]:
    ids = {
        "boss": employee(engine, "Maria", "Lopez", role="MANAGER"),
        "ana": employee(engine, "Ana", "Garcia", telegram_id="ana_tg"),
        "luis": employee(engine, "Luis", "Perez"),
        "payments": project(engine, "Payments Platform", "Card payments, refunds and payouts for merchants"),
        "mobile": project(engine, "Mobile App", "The iOS and Android client"),
    }
    ids["login"] = task(engine, "Fix login bug after password reset", "Users are logged out after a password reset",
                        assignee_id=ids["ana"], project_id=ids["mobile"], priority="HIGH")
    ids["refund"] = task(engine, "Refund flow times out", "Adyen refunds time out after 30 s",
                         assignee_id=ids["luis"], project_id=ids["payments"], priority="CRITICAL")
    ids["sdk"] = task(engine, "Upgrade payment SDK", "The card SDK is deprecated", project_id=ids["payments"],
                      priority="CRITICAL", expected_end_date=dt.date(2020, 1, 1))
    comment(engine, ids["login"], "Blocked until the auth service deploy", ids["ana"])
    ids["policy"] = document(engine, "Vacation policy", "Every employee gets 25 vacation days per year.")
    Worker(engine, settings).run_once()
    return ids


def client_for(settings, engine, **update: Any) -> TestClient:
    settings = settings.model_copy(update={"run_worker": False, "backfill_on_startup": False, **update})
    return TestClient(create_app(settings, engine=engine), raise_server_exceptions=False)


def demo_app(demo, **update: Any):
    """The real app over a demo engine (app.services.golden_eval.demo_engine), worker off."""
    engine, settings = demo
    settings = settings.model_copy(update={"run_worker": False, "backfill_on_startup": False, **update})
    return create_app(settings, engine=engine)


def ask(c: TestClient, who: int, message: str, conversation: int | None = None, **extra: Any) -> dict[str, Any]:
    """One POST /api/v1/chat turn as ``who``; it must succeed."""
    body = {"employee_id": who, "message": message, **extra}
    if conversation is not None:
        body["conversation_id"] = conversation
    response = c.post("/api/v1/chat", json=body, headers=AUTH)
    assert response.status_code == 200, response.text
    return response.json()


def converse(c: TestClient, who: int, *questions: str) -> list[dict[str, Any]]:
    """The questions as one conversation, each continuing the one the first created."""
    answers, conversation = [], None
    for question in questions:
        answers.append(ask(c, who, question, conversation))
        conversation = answers[-1]["conversation_id"]
    return answers


def llm_settings(llm, **update: Any) -> dict[str, Any]:
    return {"llm_url": llm.url, "llm_model": "tiny", "llm_timeout_s": 10.0, **update}


def tool_result(request: dict[str, Any], index: int = 0) -> dict[str, Any]:
    """The index-th tool message the fake LLM received in one request, decoded."""
    tool_messages = [m for m in request["body"]["messages"] if m["role"] == "tool"]
    return json.loads(tool_messages[index]["content"])


def project_of(ids: dict[str, int], hit: dict[str, Any]) -> int | None:
    """The project a retrieved chunk belongs to (in this data set)."""
    by_task = {ids["login"]: ids["mobile"], ids["refund"]: ids["payments"], ids["sdk"]: ids["payments"]}
    if hit["source_type"] == "task":
        return by_task[hit["source_id"]]
    if hit["source_type"] == "project":
        return hit["source_id"]
    return None  # the vacation policy
