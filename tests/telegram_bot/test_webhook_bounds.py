"""The webhook judges a request by its headers before it reads the body, refuses a malformed update with a
400 (never a 500), and answers a replayed update once. The real bot in webhook mode, raw sockets."""

from __future__ import annotations

import json
import threading

import pytest

from tests.telegram_bot.conftest import WEBHOOK_SECRET, drive, settings_for
from tests.telegram_bot.fake_api import ChatReply, FakeAPI
from tests.telegram_bot.fake_telegram import SECRET_HEADER, post_update
from tests.telegram_bot.raw_post import post

ME = 7
JSON = {"Content-Type": "application/json"}
SECRET = {**JSON, SECRET_HEADER: WEBHOOK_SECRET}
NINETY_MIB = 90 * 1024 * 1024


def posting(telegram, requests, results):
    """A thread that waits for the webhook to be set, then makes each request in turn (a callable of the URL)."""
    def run() -> None:
        while telegram.webhook is None:
            threading.Event().wait(0.02)
        url = telegram.webhook[0]
        while post_update(url, {}, None) is None:  # the server is a moment behind setWebhook
            threading.Event().wait(0.02)
        for request in requests:
            results.append(request(url))

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def test_a_post_without_the_secret_is_refused_before_one_byte_of_its_body_is_read(webhook_telegram, tmp_path):
    """90 MiB declared, none sent: the refusal comes back on the headers alone (a server that read the body
    first would wait for it, and the post would get no answer)."""
    results: list[tuple[int | None, int]] = []
    with FakeAPI() as api:
        requests = [lambda url: _headers_only(url, JSON),
                    lambda url: _headers_only(url, {**JSON, SECRET_HEADER: "not-the-secret"}),
                    lambda url: _headers_only(url, SECRET),  # the secret, but past the cap
                    lambda url: post(url, {**SECRET, "Transfer-Encoding": "chunked"}, b"")]  # no length given
        poster = posting(webhook_telegram, requests, results)
        drive(settings_for(webhook_telegram, api, tmp_path / "state.json"), lambda: len(results) == 4)
        poster.join()
        assert api.asked() == [] and api.chats() == []
    assert [status for status, _ in results] == [403, 403, 413, 411]
    assert [sent for _, sent in results] == [0, 0, 0, 0]


def _headers_only(url: str, headers: dict[str, str]) -> tuple[int | None, int]:
    """Declare a 90 MiB body and send none of it: only a server that answers on the headers answers."""
    return post(url, {**headers, "Content-Length": str(NINETY_MIB)}, b"", wait_s=20)


@pytest.mark.parametrize("body", [b"not json at all", b"[" * 100_000 + b"]" * 100_000, b'{"update_id": 5, "x": "\xff\xfe"}',
                                  b'[1, 2]', b'{"message": {}}', b'{"update_id": 6, "message": "text"}'],
                         ids=["not-json", "nested-100000-deep", "invalid-utf8", "not-an-object", "no-update-id",
                              "wrong-shape"])
def test_a_malformed_update_with_the_secret_is_a_400_and_the_bot_keeps_answering(webhook_telegram, tmp_path, body):
    results: list[tuple[int | None, int]] = []
    with FakeAPI(ChatReply(("Fine.",))) as api:
        good = {"update_id": 900, **webhook_telegram.text_update(ME, "status?")}
        requests = [lambda url: post(url, SECRET, body), lambda url: post(url, SECRET, json.dumps(good).encode())]
        poster = posting(webhook_telegram, requests, results)
        drive(settings_for(webhook_telegram, api, tmp_path / "state.json"),
              lambda: len(results) == 2 and webhook_telegram.sent_to(ME) == ["Fine."])
        poster.join()
        assert [c["message"] for c in api.chats()] == ["status?"]
    assert [status for status, _ in results] == [400, 200]


def test_an_update_replayed_three_times_is_answered_once(webhook_telegram, tmp_path):
    results: list[tuple[int | None, int]] = []
    with FakeAPI(ChatReply(("First.",)), ChatReply(("Second.",))) as api:
        update = json.dumps({"update_id": 41, **webhook_telegram.text_update(ME, "what is open?")}).encode()
        later = json.dumps({"update_id": 42, **webhook_telegram.text_update(ME, "and now?")}).encode()
        requests = [lambda url: post(url, SECRET, update)] * 3 + [lambda url: post(url, SECRET, later)]
        poster = posting(webhook_telegram, requests, results)
        drive(settings_for(webhook_telegram, api, tmp_path / "state.json"),
              lambda: len(results) == 4 and webhook_telegram.sent_to(ME) == ["First.", "Second."])
        poster.join()
        assert [c["message"] for c in api.chats()] == ["what is open?", "and now?"]
    assert [status for status, _ in results] == [200, 200, 200, 200]  # a repeat is acknowledged, not answered


def test_seen_updates_forget_the_oldest_past_their_capacity():
    from app.telegram.webhook import SeenUpdates

    seen = SeenUpdates(capacity=3)
    assert [seen.first_time(i) for i in (1, 2, 3, 1, 4)] == [True, True, True, False, True]
    assert [seen.first_time(i) for i in (2, 1)] == [False, True]  # 1 was the oldest when 4 came


def test_eight_90_mib_posts_without_the_secret_leave_the_bots_peak_memory_where_it_was():
    """Issue 26's attack on the real bot process (scripts/bench_telegram_webhook.py): before, each post was
    read whole before its 403 and the bot's peak grew by about a GiB; now what grows is the bot's own noise.
    An attacker still sending when the bot closes may see the reset instead of the 403 (None): the bot closes
    rather than drain a body it will not read, so the attackers got only socket buffers' worth out."""
    from scripts.bench_telegram_webhook import attack

    result = attack(posts=8, mib=90)
    assert set(result["statuses"]) <= {"403", "None"} and "403" in result["statuses"], result
    assert result["body_mib_sent"] < 8 * 90 / 4, result  # before: all 720 MiB
    assert result["growth_mib"] < 32, result
