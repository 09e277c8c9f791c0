"""The console's pages (GET) and actions (POST) under /console, and ``install`` which mounts them.

A page asks the services (and the engine contract) what the API's routes ask them; the chat playground's
page only sets the stage, its script then calls /api/v1 like any client. Every page but the login needs an
admin token's session (app/console/session.py); the employees a page is about are read from EMPLOYEES on
each request, as for any search or chat.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
import time
from pathlib import Path as FilePath
from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Depends, FastAPI, Path, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates

from app.api.deps import EngineDep, SettingsDep, WorkerDep, nudge
from app.api.types import JSON_MAX_ID
from app.auth import match
from app.console import charts, views
from app.console.headers import ConsoleHeaders
from app.console.params import MAX_TOP_K, Params
from app.console.session import (ConsoleError, LoginRequired, csrf_for, end_session, posted_form, require_session,
                                 session_grant, start_session)
from app.domain import MAX_QUESTION_CHARS, Caller
from app.engines.base import Engine
from app.metrics_history import RECENT_BATCHES
from app.rag import refs
from app.services import conversations, eval_results
from app.services.access_explainer import explain_entity, explain_search
from app.services.search import UnknownCallerError, resolve_caller

HERE = FilePath(__file__).parent
TEMPLATES = Jinja2Templates(directory=HERE / "templates")
TEMPLATES.env.globals["ref_of"] = refs.ref_of  # an anchor's entity, for the explainer's links
TEMPLATES.env.globals["MAX_QUESTION_CHARS"] = MAX_QUESTION_CHARS  # the forms' maxlength, as the API's
TEMPLATES.env.filters["utc"] = lambda seconds: dt.datetime.fromtimestamp(seconds, dt.timezone.utc).strftime("%H:%M:%S")
HOME = "/console/access"
NAV = (("access", "Access"), ("queue", "Queue"), ("conversations", "Conversations"), ("playground", "Playground"),
       ("quality", "Quality"))

public = APIRouter(prefix="/console", include_in_schema=False)
router = APIRouter(prefix="/console", include_in_schema=False, dependencies=[Depends(require_session)])
def _params(request: Request) -> Params:
    return Params(request.query_params)


Query = Annotated[Params, Depends(_params)]


def install(app: FastAPI) -> None:
    app.include_router(public)
    app.include_router(router)
    app.mount("/console/static", StaticFiles(directory=HERE / "static"), name="console-static")
    app.add_exception_handler(LoginRequired, _to_login)
    app.add_exception_handler(ConsoleError, _error_page)
    app.add_middleware(ConsoleHeaders)


def page(request: Request, template: str, http_status: int = 200, **context: Any) -> HTMLResponse:
    signed_in = session_grant(request) is not None
    return TEMPLATES.TemplateResponse(request, template, {
        "nav": NAV, "active": template.removesuffix(".html"), "signed_in": signed_in,
        "csrf": csrf_for(request) if signed_in else None, **context}, status_code=http_status)


async def _to_login(request: Request, exc: Exception) -> Response:
    here = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    return RedirectResponse(f"/console/login?next={quote(here, safe='/')}", status_code=303)


async def _error_page(request: Request, exc: Exception) -> Response:
    status = getattr(exc, "status", 400)
    return page(request, "error.html", status, message=str(exc), code=status)


def _caller(engine: Engine, employee_id: int) -> Caller:
    try:
        return resolve_caller(engine, employee_id)
    except UnknownCallerError as exc:
        raise ConsoleError(404, str(exc)) from None


# --- login ------------------------------------------------------------------------------------------

def _next_page(target: str | None) -> str:
    """Only a console page (never another site: ``//host`` or a scheme) after the login."""
    return target if target and target.startswith("/console/") and "//" not in target and "\\" not in target else HOME


@public.get("/login")
def login_page(request: Request, next: str | None = None) -> Response:
    if session_grant(request) is not None:
        return RedirectResponse(_next_page(next), status_code=303)
    return page(request, "login.html", next=_next_page(next))


@public.post("/login")
async def login(request: Request) -> Response:
    form = await posted_form(request, csrf=False)  # no session yet; the same-origin check still applies
    token = form.get("token", "").strip()
    grant = match(request.app.state.grants, token) if token else None
    if grant is None or grant.scope != "admin":
        why = ("that is not a configured API token" if grant is None
               else f"this token's scope is {grant.scope}: the console needs an admin token")
        return page(request, "login.html", 401 if grant is None else 403, next=_next_page(form.get("next")),
                    error=why)
    response = RedirectResponse(_next_page(form.get("next")), status_code=303)
    start_session(response, request, token)
    return response


@router.post("/logout")
async def logout(request: Request) -> Response:
    await posted_form(request)
    response = RedirectResponse("/console/login", status_code=303)
    end_session(response, request)
    return response


@router.get("")
def home() -> Response:
    return RedirectResponse(HOME, status_code=303)


# --- access explainer -------------------------------------------------------------------------------

@router.get("/access")
def access_page(request: Request, engine: EngineDep, settings: SettingsDep, q: Query) -> Response:
    employee_id, question = q.id("employee_id"), q.text("question")
    form = {"employee_id": employee_id, "question": question or "", "mode": q.mode(), "scope": q.scope(),
            "top_k": q.number("top_k", 1, MAX_TOP_K, settings.top_k),
            "view": q.choice("view", ("admin", "employee"), "admin"),
            "source_type": q.source_type(), "source_id": q.id("source_id")}
    explained = entity = None
    if employee_id is not None and question:
        explained = explain_search(engine, _caller(engine, employee_id), question, form["top_k"], form["scope"],
                                   form["mode"])
    if employee_id is not None and form["source_type"] and form["source_id"]:
        entity = explain_entity(engine, _caller(engine, employee_id), form["source_type"], form["source_id"])
    # The "as the employee" view gets the withheld count only: its template cannot show what it is not given.
    withheld = explained.withheld if explained and form["view"] == "admin" else None
    if entity is not None and form["view"] == "employee" and not (entity.verdict and entity.verdict.visible):
        entity = replace(entity, exists=True, verdict=None)  # that they cannot see it; not why, nor if it exists
    return page(request, "access.html", form=form, employees=views.employees(engine),
                scopes=views.scopes(engine), explained=explained, withheld=withheld,
                withheld_count=len(explained.withheld) if explained else 0, entity=entity)


# --- queue and index health -------------------------------------------------------------------------

@router.get("/queue")
def queue_page(request: Request, engine: EngineDep, settings: SettingsDep, worker: WorkerDep, q: Query) -> Response:
    status = engine.status(settings.max_attempts)
    samples = request.app.state.history.samples()
    now = time.time()
    depth = charts.time_series("Queue depth (entities)", [("pending", "series-1", [(s.at, s.pending) for s in samples])],
                               now)
    latency = charts.time_series("Search latency", [
        ("mean", "series-1", [(s.at, s.search_mean_ms) for s in samples]),
        ("p95", "series-2", [(s.at, s.search_p95_ms) for s in samples])], now, unit=" ms")
    return page(request, "queue.html", status=status, max_attempts=settings.max_attempts,
                released=q.number("released", 0, 10**9), depth=depth, latency=latency,
                batches=list(reversed(RECENT_BATCHES)), worker=worker, sample_s=settings.console_sample_s,
                samples=len(samples))


@router.post("/queue/retry")
async def retry_failing(request: Request, engine: EngineDep, worker: WorkerDep) -> Response:
    """The existing retry path (`ragctl retry`, POST /rag/reindex's retry_failed): failing rows are taken
    again at once, attempts reset; then the worker is nudged."""
    await posted_form(request)
    released = await run_in_threadpool(engine.retry_stuck)
    nudge(worker)
    return RedirectResponse(f"/console/queue?released={released}", status_code=303)


# --- conversations ----------------------------------------------------------------------------------

@router.get("/conversations")
def conversations_page(request: Request, engine: EngineDep, q: Query) -> Response:
    employee_id = q.id("employee_id")
    caller = _caller(engine, employee_id) if employee_id is not None else None
    listed = conversations.list_for(engine, caller, 200).items if caller else []
    return page(request, "conversations.html", employees=views.employees(engine), employee_id=employee_id,
                conversations=[views.conversation(engine, c) for c in listed])


@router.get("/conversations/{conversation_id}")
def conversation_page(request: Request, conversation_id: Annotated[int, Path(gt=0, le=JSON_MAX_ID)], engine: EngineDep,
                      q: Query) -> Response:
    employee_id = q.id("employee_id")
    if employee_id is None:
        raise ConsoleError(422, "employee_id is required: a conversation is read as its owner")
    caller = _caller(engine, employee_id)
    try:
        conv, messages = _conversation(engine, caller, conversation_id)
    except conversations.ConversationNotFoundError as exc:
        raise ConsoleError(404, str(exc)) from None
    return page(request, "conversation.html", conversation=views.conversation(engine, conv),
                employee=views.employee_label(engine, employee_id), employee_id=employee_id,
                turns=views.turns(engine, caller, messages, as_employee=False), as_employee=False)


def _conversation(engine, caller, conversation_id: int):
    """The conversation (ConversationNotFoundError unless it is the caller's) and its first 500 messages."""
    return (conversations.owned(engine, caller, conversation_id),
            conversations.messages(engine, caller, conversation_id, 500).items)


# --- chat playground --------------------------------------------------------------------------------

@router.get("/playground")
def playground_page(request: Request, engine: EngineDep, settings: SettingsDep, q: Query) -> Response:
    employee_id, conversation_id = q.id("employee_id"), q.id("conversation_id")
    caller = _caller(engine, employee_id) if employee_id is not None else None
    chosen, turns = None, []
    if caller is not None and conversation_id is not None:
        try:
            conv, messages = _conversation(engine, caller, conversation_id)
        except conversations.ConversationNotFoundError as exc:
            raise ConsoleError(404, str(exc)) from None
        chosen, turns = views.conversation(engine, conv), views.turns(engine, caller, messages, as_employee=True)
    default = conversations.effective(engine, settings.chat_default_scope)
    return page(request, "playground.html", employees=views.employees(engine), employee_id=employee_id,
                conversations=[views.conversation(engine, c) for c in conversations.list_for(engine, caller, 200).items]
                if caller else [], chosen=chosen, turns=turns, as_employee=True, scopes=views.scopes(engine),
                default_scope={"value": default.stored, "label": default.label})


# --- quality ----------------------------------------------------------------------------------------

@router.get("/quality")
def quality_page(request: Request, settings: SettingsDep) -> Response:
    runs = eval_results.load(settings.eval_results_dir)
    return page(request, "quality.html", results_dir=settings.eval_results_dir,
                golden=views.golden_view(runs.get("golden")), beir=views.beir_view(runs.get("beir")))
