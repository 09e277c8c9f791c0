"""The console in a real browser: Playwright drives Debian's Chromium (headless) against the app under uvicorn on
loopback, over the demo data on the real SQLite engine, with the loopback fake LLM for the playground.

One browser and one server for the module keep its cost to seconds. Each test saves a screenshot of the page
it drives: into pytest's temporary directory, or into the directory RAG_CONSOLE_SCREENSHOTS names
(``make screenshots`` writes docs/console/, the pictures docs/CONSOLE.md shows).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

import pytest
from click.testing import CliRunner

from app import demo_data
from app.api.main import create_app
from app.cli import CliEnv, cli
from app.config import Settings
from app.domain import Scope
from app.entities import EMPLOYEES, PROJECTS, TASKS
from app.services import conversations
from app.services.access_explainer import explain_search
from app.services.demo import seed
from app.services.records import iter_records
from app.services.search import resolve_caller
from app.worker import Worker
from tests.api.servers import serve
from tests.cli.test_cli_eval import write_collection
from tests.cli.test_cli_eval_golden import GOLDEN
from tests.fake_llm import FakeLLM, Reply

CHROMIUM = next((path for path in (shutil.which("chromium"), "/usr/bin/chromium", "/usr/bin/chromium-browser")
                 if path and os.path.exists(path)), None)
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="no Chromium on this machine: `apt-get install chromium` (Debian) runs the console's "
                             "browser tests (.ci/run installs it where apt-get is available)")
# Without the background-networking flags Chromium's own connections are refused on a closed network.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
TOKEN = "console-admin-token"
BOT_TOKEN = "console-bot-token"
QUESTION = "monitoring alerts for the refund flow"


@dataclass(frozen=True)
class Stack:
    url: str
    engine: Any
    settings: Settings
    app: Any


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    where = Path(os.environ.get("RAG_CONSOLE_SCREENSHOTS") or tmp_path_factory.mktemp("screenshots"))
    where.mkdir(parents=True, exist_ok=True)
    return where


@pytest.fixture(scope="module")
def llm():
    with FakeLLM(Reply.plain("unused")) as fake:
        yield fake


@pytest.fixture(scope="module")
def stack(tmp_path_factory, embedder, llm):
    """The demo data (30 tasks) indexed in a real SQLite engine, and the app serving it on loopback."""
    from app.engines.sqlite.engine import SQLiteEngine

    where = tmp_path_factory.mktemp("console")
    settings = Settings(
        database_url=f"sqlite:///{where}/rag.db", api_tokens=TOKEN, run_worker=False, backfill_on_startup=False,
        api_token_scopes=json.dumps([{"token": BOT_TOKEN, "scope": "bot"}]), console_sample_s=0.2,
        eval_results_dir=str(where / "eval"), llm_url=llm.url, llm_model="tiny", llm_timeout_s=10.0)
    engine = SQLiteEngine.open(settings, embedder=embedder)
    engine.migrate()
    seed(engine, demo_data.build(tasks=30))
    Worker(engine, settings).run_once()
    app = create_app(settings, engine=engine)
    with serve(app) as url:
        yield Stack(url, engine, settings, app)
    engine.close()


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        # launch() gives every run a fresh temporary profile (Playwright's own --user-data-dir).
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


def new_tab(browser, stack, height: int = 900):
    """A fresh browser context (no cookie) and its page, which records every script error, failed load and
    Content-Security-Policy violation (the console has no inline script or style: the policy forbids both)."""
    context = browser.new_context(base_url=stack.url, viewport={"width": 1280, "height": height})
    context.set_default_timeout(10_000)
    tab = context.new_page()
    tab.problems = []
    tab.on("pageerror", lambda error: tab.problems.append(f"script error: {error}"))
    tab.on("console", lambda message: message.type == "error" and tab.problems.append(message.text))
    return context, tab


def close(context, tab, expected: tuple[str, ...] = ()) -> None:
    """Close the context; every problem the page met must be one the test provoked (``expected`` substrings)."""
    context.close()
    unexpected = [p for p in tab.problems if not any(e in p for e in expected)]
    assert not unexpected, unexpected


@pytest.fixture
def page(browser, stack):
    """Logged in through the form."""
    context, tab = new_tab(browser, stack)
    tab.goto("/console/login")
    tab.get_by_label("Admin token").fill(TOKEN)
    tab.get_by_role("button", name="Log in").click()
    tab.wait_for_url("**/console/access")
    yield tab
    close(context, tab)


def expect(locator):
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect(locator)


def person(engine, first: str) -> int:
    return next(r["employee_id"] for r in iter_records(engine, EMPLOYEES)
                if r["first_name"] == first)


def project_id(engine, name: str) -> int:
    return next(r["project_id"] for r in iter_records(engine, PROJECTS) if r["name"] == name)


# --- the tests --------------------------------------------------------------------------------------------

def test_token_login_keeps_the_token_out_of_reach_of_scripts(browser, stack, shots):
    context, tab = new_tab(browser, stack, height=720)
    tab.goto("/console/queue")  # not logged in: sent to the login, which comes back here
    expect(tab).to_have_url(re.compile(r"/console/login\?next=/console/queue$"))
    tab.get_by_label("Admin token").fill("not-a-token")
    tab.keyboard.press("Enter")
    expect(tab.locator("#login-error")).to_have_text("that is not a configured API token")
    tab.get_by_label("Admin token").fill(BOT_TOKEN)
    tab.keyboard.press("Enter")
    expect(tab.locator("#login-error")).to_contain_text("the console needs an admin token")
    tab.screenshot(path=shots / "login.png")
    tab.get_by_label("Admin token").fill(TOKEN)
    tab.get_by_role("button", name="Log in").click()
    expect(tab).to_have_url(re.compile(r"/console/queue$"))
    assert "rag_console" not in tab.evaluate("document.cookie")  # HttpOnly: no script can read it
    tab.get_by_role("button", name="Log out").click()
    expect(tab).to_have_url(re.compile(r"/console/login$"))
    tab.goto("/console/access")
    expect(tab).to_have_url(re.compile(r"/console/login\?next=/console/access$"))
    close(context, tab, expected=("status of 401", "status of 403"))  # the refused logins


def test_the_explainer_for_a_developer_and_a_manager(page, stack, shots):
    engine, settings = stack.engine, stack.settings
    ben, maria = person(engine, "Ben"), person(engine, "Maria")
    expected = explain_search(engine, resolve_caller(engine, ben), QUESTION, settings.top_k, Scope(), "hybrid")
    assert expected.withheld and expected.visible  # the demo data hides some of this from a developer

    page.locator("#employee_id").select_option(str(ben))
    page.get_by_label("Question").fill(QUESTION)
    page.get_by_role("button", name="Explain").click()
    expect(page.locator("#withheld-count")).to_have_text(str(len(expected.withheld)))
    expect(page.locator("#visible-hits tbody tr")).to_have_count(len(expected.visible))
    expect(page.locator("#withheld-hits tbody tr")).to_have_count(len(expected.withheld))
    reasons = page.locator("#withheld-hits td.whynot").all_inner_texts()
    assert reasons == [e.verdict.reason for e in expected.withheld]
    assert all(re.match(r"(assigned to|owned by) |unassigned task", r) for r in reasons)
    assert set(page.locator("#visible-hits td.why").all_inner_texts()) <= {
        "assigned to Ben Carter", "owned by Ben Carter", "organisation-wide document", "every employee sees sprints",
        "every employee sees projects"}
    page.screenshot(path=shots / "access-admin-view.png", full_page=True)

    page.get_by_label("As the employee").check()
    page.get_by_role("button", name="Explain").click()
    expect(page.locator("#withheld-note")).to_contain_text(f"{len(expected.withheld)} hit")
    shown = page.locator("main").inner_text()
    for e in expected.withheld:  # neither the text nor the reason of anything Ben may not see
        assert e.hit.content.splitlines()[0] not in shown and e.verdict.reason not in shown
    expect(page.locator("#withheld-hits")).to_have_count(0)
    page.screenshot(path=shots / "access-employee-view.png", full_page=True)

    page.locator("#employee_id").select_option(str(maria))
    page.get_by_label("Admin: withheld hits").check()
    page.get_by_role("button", name="Explain").click()
    expect(page.locator("#withheld-count")).to_have_text("0")
    assert set(page.locator("#visible-hits td.why").all_inner_texts()) == {"manager sees all"}

    hidden = next(e for e in expected.withheld if e.hit.source_type == "task")
    page.locator("#entity_employee").select_option(str(ben))
    page.get_by_label("Type", exact=True).select_option("task")
    page.get_by_label("Id", exact=True).fill(str(hidden.hit.source_id))
    page.get_by_role("button", name="Check").click()
    expect(page.locator("#entity-verdict")).to_contain_text(f"cannot see task #{hidden.hit.source_id}: "
                                                            f"{hidden.verdict.reason}")


def test_a_streamed_chat_whose_chip_follows_set_rag_scope(page, stack, llm, shots):
    engine = stack.engine
    maria, payments = person(engine, "Maria"), project_id(engine, "Payments Platform")
    llm.requests.clear()
    llm.script[:] = [Reply.stream_tools(("c1", "set_rag_scope", json.dumps({"scope": payments}))),
                     Reply.stream("Refunds ", "are handled ", "by the payments team.", delay_s=0.4)]
    page.goto(f"/console/playground?employee_id={maria}")
    chip = page.locator("#scope-chip")
    expect(chip).to_have_text("All projects")
    # the asker asks for the scope in words: set_rag_scope runs only then (issue 26, point 8)
    page.get_by_label("Message").fill("only the payments project from now on: how are refunds handled?")
    page.keyboard.press("Enter")
    # tokens as they arrive: part of the answer is on screen while the stream is still open
    expect(page.locator(".msg.assistant.streaming .text")).to_contain_text("Refunds")
    expect(page.locator(".msg.assistant.streaming")).to_have_count(0)
    expect(page.locator(".msg.assistant .text").last).to_have_text("Refunds are handled by the payments team.")
    expect(chip).to_have_text("Payments Platform")
    expect(chip).to_have_class(re.compile(r"\bchanged\b"))  # the short highlight
    assert chip.get_attribute("data-changed-to") == str(payments)
    page.screenshot(path=shots / "playground.png", full_page=True)
    conversation_id = int(re.search(r"conversation_id=(\d+)", page.url).group(1))
    assert engine.get_conversation(conversation_id).rag_scope == str(payments)

    chip.click()  # a click changes it back (PATCH /conversations/{id})
    page.get_by_role("menuitemradio", name="No project").click()
    expect(chip).to_have_text("No project")
    assert engine.get_conversation(conversation_id).rag_scope == "none"

    mobile = project_id(engine, "Mobile App Relaunch")
    pinned = conversations.create(engine, resolve_caller(engine, maria), str(mobile), True, "pinned to mobile")
    page.goto(f"/console/playground?employee_id={maria}&conversation_id={pinned.conversation_id}")
    expect(page.locator("#pinned-chip")).to_contain_text("Mobile App Relaunch")
    expect(page.locator("#pinned-chip")).to_contain_text("pinned")
    expect(chip).to_be_hidden()  # fixed: nothing to click


def test_a_stream_reset_replaces_what_was_shown_with_the_extractive_answer(page, stack, llm):
    engine = stack.engine
    maria = person(engine, "Maria")
    llm.requests.clear()
    llm.script[:] = [Reply.stream("Maria ", "thinks ", "that ", delay_s=0.4, done=False)]  # breaks mid-answer
    page.goto(f"/console/playground?employee_id={maria}")
    page.get_by_label("Message").fill("monitoring alerts for the refund flow")
    page.get_by_role("button", name="Send").click()
    expect(page.locator(".msg.assistant.streaming .text")).to_contain_text("Maria")  # the model's first token
    expect(page.locator(".msg.assistant.streaming")).to_have_count(0)
    answer = page.locator(".msg.assistant").last
    expect(answer.locator(".note")).to_have_text(re.compile(r"not used \(the model's reply was unusable\)"))
    conversation_id = int(re.search(r"conversation_id=(\d+)", page.url).group(1))
    stored = engine.list_messages(conversation_id, None, 10).items[-1]
    assert stored.facts.llm_error == "bad_response" and not stored.content.startswith("Maria")
    expect(answer.locator(".text")).to_have_text(stored.content)  # what was shown before the reset is gone
    expect(answer.locator("details.retrieved li")).to_have_count(len(stored.facts.retrieved))


def test_conversations_list_and_turns(page, stack, llm, shots):
    engine = stack.engine
    ana = person(engine, "Ana")
    task_row = next(r for r in iter_records(engine, TASKS) if r["assignee_id"] == ana)
    anchor = f"[TASK #{task_row['task_id']}]"
    llm.requests.clear()
    llm.script[:] = [Reply.plain(f"It is {task_row['status']}: {task_row['title']} {anchor}.")]
    with httpx.Client(base_url=stack.url, headers={"Authorization": f"Bearer {TOKEN}"}, timeout=20) as api:
        asked = api.post("/api/v1/chat", json={"employee_id": ana, "message": f"what is the status of task "
                                                                              f"{task_row['task_id']}?"}).json()
    assert asked["citations"] == [anchor]
    page.goto(f"/console/conversations?employee_id={ana}")
    page.get_by_role("link", name=re.compile("what is the status of task")).click()
    turn = page.locator("#turns .turn").last
    expect(turn.locator(".msg.user")).to_contain_text(f"task {task_row['task_id']}")
    expect(turn.locator(".who").last).to_contain_text("scope All projects")
    expect(turn.locator("details.retrieved li")).to_have_count(len(asked["results"]))
    page.screenshot(path=shots / "conversation.png", full_page=True)
    turn.locator(".cites").get_by_role("link", name=anchor).click()  # why could she see it?
    expect(page.locator("#entity-verdict")).to_contain_text(f"can see task #{task_row['task_id']}: assigned to Ana")


def test_retry_of_a_failing_row(page, stack, shots):
    engine, settings = stack.engine, stack.settings
    task_id = engine.create(TASKS, {"TITLE": "Flaky indexing", "DESCRIPTION": "the embedder fails on this one"})[
        "task_id"]

    def failing_counter(text: str) -> int:
        raise RuntimeError("embedding server unreachable (connection refused)")

    Worker(engine, settings, token_counter=failing_counter).run_once()  # the real drain path records the failure
    with httpx.Client(base_url=stack.url, headers={"Authorization": f"Bearer {TOKEN}"}) as api:
        for question in ("login bug", "refund flow", "release process"):  # what the latency chart samples
            assert api.post("/api/v1/search", json={"question": question, "employee_id": 1}).status_code == 200
    deadline = time.monotonic() + 10
    while not any(s.searches for s in stack.app.state.history.samples()):  # a sample every 0.2 s
        assert time.monotonic() < deadline, "no metrics sample saw the searches"
        time.sleep(0.05)
    page.goto("/console/queue")
    expect(page.locator("#latency-chart .series-1").first).to_be_attached()
    queued = engine.status(settings.max_attempts)  # entities pending, and the rows beside them
    expect(page.locator("#pending")).to_have_text(str(queued.pending))
    expect(page.locator("#queue-rows")).to_have_text(str(queued.queue_rows))
    row = page.locator("#failing-rows tbody tr", has_text=f"task #{task_id}")
    expect(row).to_contain_text("embedding server unreachable")
    expect(row).to_contain_text(f"1 / {settings.max_attempts}")
    expect(page.locator("#batches tbody tr").first).to_contain_text("embedding server unreachable")
    page.screenshot(path=shots / "queue.png", full_page=True)
    page.get_by_role("button", name="Retry failing rows now").click()
    expect(page.locator("#released")).to_contain_text("Released 1 failing row")
    expect(page.locator("#no-failing")).to_be_visible()
    assert Worker(engine, settings).run_once().chunks_written == 1  # released: the next drain indexes it
    assert engine.status(settings.max_attempts).pending == 0


def ragctl(settings, engine, *args):
    """The CLI, run in a thread of its own: Playwright's sync API keeps an event loop running in this one, and
    the golden evaluation's chats start their own."""
    out = []
    runner = threading.Thread(target=lambda: out.append(CliRunner().invoke(cli, list(args),
                                                                           obj=CliEnv(settings, engine))))
    runner.start()
    runner.join()
    return out[0]


def test_quality_shows_the_last_eval(page, stack, shots, tmp_path):
    engine, settings = stack.engine, stack.settings
    result = ragctl(settings, engine, "eval", *write_collection(tmp_path), "--json")
    assert result.exit_code == 0, result.output
    figures = json.loads(result.stdout)
    pictures = bool(os.environ.get("RAG_CONSOLE_SCREENSHOTS"))
    if pictures:  # docs/CONSOLE.md's picture shows both sections; the golden run costs ~20 s, so not in every run
        ran = ragctl(settings, engine, "eval", "--golden", str(GOLDEN))
        assert ran.exit_code == 0, ran.output
    page.goto("/console/quality")
    expect(page.locator("#beir-table tbody tr")).to_have_count(3)
    hybrid = page.locator("#beir-table tbody tr", has_text="hybrid")
    expect(hybrid).to_contain_text(f"{figures['hybrid']['ndcg@10']:.4f}")
    expect(page.locator("#beir-chart rect")).to_have_count(9)  # three modes x nDCG, MRR, recall
    # (the golden table in every run: tests/cli/test_cli_eval_golden.py, which runs the suite's golden evaluation)
    expect(page.locator("#golden-table" if pictures else "#golden-missing")).to_be_visible()
    page.screenshot(path=shots / "quality.png", full_page=True)


def test_keyboard_only_use_of_the_main_controls(browser, stack, shots):
    engine = stack.engine
    ben, maria = person(engine, "Ben"), person(engine, "Maria")
    context, tab = new_tab(browser, stack)
    keys = tab.keyboard

    def tab_to(selector: str, limit: int = 60) -> None:
        for _ in range(limit):
            keys.press("Tab")
            if tab.evaluate("(s) => document.activeElement && document.activeElement.matches(s)", selector):
                return
        raise AssertionError(f"Tab never reached {selector}")

    tab.goto("/console/login")
    # autofocus lands once the page has loaded; a busy machine may type before that
    expect(tab.get_by_label("Admin token")).to_be_focused()
    keys.type(TOKEN)
    keys.press("Enter")
    tab.wait_for_url("**/console/access")
    tab_to("a.skip")
    keys.press("Enter")  # skip the navigation
    tab_to("#employee_id")
    keys.type("Ben")  # type-ahead in the native select
    assert tab.locator("#employee_id").input_value() == str(ben)
    tab_to("#question")
    keys.type(QUESTION)
    keys.press("Enter")
    expect(tab.locator("#withheld-count")).to_be_visible()

    tab.goto(f"/console/playground?employee_id={maria}")
    tab_to("#scope-chip")
    keys.press("Enter")  # opens the menu on the current scope
    expect(tab.locator("#scope-menu")).to_be_visible()
    keys.press("ArrowDown")  # All projects -> No project
    keys.press("Enter")
    expect(tab.locator("#scope-chip")).to_have_text("No project")
    assert tab.evaluate("document.activeElement.id") == "scope-chip"  # focus comes back to the chip
    keys.press("Enter")
    keys.press("Escape")
    expect(tab.locator("#scope-menu")).to_be_hidden()

    tab.goto("/console/queue")
    tab_to("a[href='/console/conversations']")
    keys.press("Enter")
    expect(tab).to_have_url(re.compile(r"/console/conversations$"))
    tab.screenshot(path=shots / "keyboard-focus.png")
    close(context, tab)
