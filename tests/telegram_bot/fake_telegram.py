"""A real loopback HTTP server speaking the Telegram Bot API, as python-telegram-bot calls it.

``POST /bot<token>/<method>`` with form-encoded parameters (each value JSON-encoded, strings plain).
It answers getMe, getUpdates (long polling over scripted updates, honouring ``offset``), sendMessage
and editMessageText (keeping each message's current text, as a user would see it), setWebhook and
deleteWebhook, and ``true`` for anything else (setMyCommands, …). Every call is recorded with its
parameters and the time it arrived.

Updates reach the bot the way Telegram sends them: by getUpdates, or, once a webhook is set, POSTed to
its URL one at a time in order with the ``X-Telegram-Bot-Api-Secret-Token`` header, each retried until
the bot answers 200 (getUpdates is then a 409, as Telegram answers it). Every delivery attempt is
recorded with its status.

    with FakeTelegram() as tg:
        tg.push(tg.text_update(user_id=7, text="/help"))
        settings = TelegramSettings(api_url=tg.url, ...)
"""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qsl

from tests.loopback import LoopbackHTTPServer

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"

TOKEN = "123456:TEST-token"
BOT_USER = {"id": 999, "is_bot": True, "first_name": "RAG", "username": "rag_test_bot"}


@dataclass(frozen=True)
class Call:
    method: str
    params: dict[str, str]
    at: float  # time.monotonic() on arrival


@dataclass(frozen=True)
class Delivery:
    update_id: int
    url: str
    status: int | None  # the webhook's HTTP status; None when nothing answered (connection refused)


def post_update(url: str, update: dict[str, Any], secret: str | None) -> int | None:
    """POST one update to a webhook as Telegram does; the HTTP status, or None if nothing answered."""
    headers = {"Content-Type": "application/json", **({SECRET_HEADER: secret} if secret is not None else {})}
    request = urllib.request.Request(url, data=json.dumps(update).encode(), headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code
    except OSError:
        return None


class ConflictError(Exception):
    """Telegram's 409: getUpdates while a webhook is set."""


class FakeTelegram:
    def __init__(self, token: str = TOKEN, hold_s: float = 0.1) -> None:
        self.token, self.hold_s = token, hold_s  # hold_s: longest wait of an empty getUpdates
        self.calls: list[Call] = []
        self.messages: dict[int, dict[int, str]] = {}  # chat id -> message id -> current text
        self._updates: list[dict[str, Any]] = []
        self._next_update = 1
        self._next_message = 100
        self._cond = threading.Condition()
        self.webhook: tuple[str, str | None] | None = None  # (url, secret_token) once setWebhook was called
        self.deliveries: list[Delivery] = []
        self._closing = False
        self.server = LoopbackHTTPServer(("127.0.0.1", 0), self._handler())
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/bot"
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)
        self.courier = threading.Thread(target=self._deliver, daemon=True)

    def __enter__(self) -> FakeTelegram:
        self.thread.start()
        self.courier.start()
        return self

    def __exit__(self, *exc: object) -> None:
        with self._cond:
            self._closing = True
            self._cond.notify_all()
        self.courier.join(timeout=10)
        self.server.shutdown()
        self.server.server_close()

    # --- scripting and inspecting ----------------------------------------------------------
    def push(self, *updates: dict[str, Any]) -> None:
        with self._cond:
            for update in updates:
                self._updates.append({"update_id": self._next_update, **update})
                self._next_update += 1
            self._cond.notify_all()

    @staticmethod
    def text_update(user_id: int, text: str, chat_type: str = "private", chat_id: int | None = None,
                    language_code: str | None = None) -> dict[str, Any]:
        chat_id = user_id if chat_id is None else chat_id
        sender: dict[str, Any] = {"id": user_id, "is_bot": False, "first_name": f"user{user_id}"}
        if language_code is not None:
            sender["language_code"] = language_code
        message: dict[str, Any] = {
            "message_id": 1, "date": int(time.time()), "text": text,
            "chat": {"id": chat_id, "type": chat_type, **({"title": "team"} if chat_type != "private" else {})},
            "from": sender,
        }
        if text.startswith("/"):
            message["entities"] = [{"type": "bot_command", "offset": 0, "length": len(text.split()[0])}]
        return {"message": message}

    def of(self, *methods: str) -> list[Call]:
        with self._cond:
            return [c for c in self.calls if c.method in methods]

    def sent_to(self, chat_id: int) -> list[str]:
        """The texts the chat shows now, in the order the messages were sent."""
        with self._cond:
            return [text for _, text in sorted(self.messages.get(chat_id, {}).items())]

    # --- the protocol ------------------------------------------------------------------------
    def _answer(self, method: str, params: dict[str, str]) -> Any:
        if method == "getMe":
            return BOT_USER
        if method == "getUpdates":
            if self.webhook is not None:
                raise ConflictError("Conflict: can't use getUpdates method while webhook is active; use "
                                    "deleteWebhook to delete the webhook first")
            return self._get_updates(params)
        if method in ("setWebhook", "deleteWebhook"):
            with self._cond:
                self.webhook = (params["url"], params.get("secret_token")) if method == "setWebhook" else None
                self._cond.notify_all()
            return True
        if method == "sendMessage":
            chat_id = int(params["chat_id"])
            with self._cond:
                self._next_message += 1
                message_id = self._next_message
                self.messages.setdefault(chat_id, {})[message_id] = params["text"]
            return self._message(chat_id, message_id, params["text"])
        if method == "editMessageText":
            chat_id, message_id = int(params["chat_id"]), int(params["message_id"])
            with self._cond:
                if message_id not in self.messages.get(chat_id, {}):
                    raise LookupError("Bad Request: message to edit not found")
                if self.messages[chat_id][message_id] == params["text"]:
                    raise LookupError("Bad Request: message is not modified")
                self.messages[chat_id][message_id] = params["text"]
            return self._message(chat_id, message_id, params["text"])
        return True  # setMyCommands, close, …

    def _get_updates(self, params: dict[str, str]) -> list[dict[str, Any]]:
        offset = int(params.get("offset", "0"))
        wait = min(float(params.get("timeout", "0")), self.hold_s)
        with self._cond:
            # As Telegram does, an offset confirms (and forgets) every earlier update.
            self._updates = [u for u in self._updates if u["update_id"] >= offset]
            self._cond.wait_for(lambda: bool(self._updates), timeout=wait)
            return list(self._updates)

    def _deliver(self) -> None:
        """While a webhook is set, POST the oldest update to it until it is taken, then the next."""
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._closing or (self.webhook is not None and bool(self._updates)))
                if self._closing:
                    return
                (url, secret), update = self.webhook, self._updates[0]
            status = post_update(url, update, secret)
            with self._cond:
                self.deliveries.append(Delivery(update["update_id"], url, status))
                if status == 200:
                    self._updates = [u for u in self._updates if u["update_id"] != update["update_id"]]
                    continue
                self._cond.wait(0.05)  # as Telegram does, try again later

    @staticmethod
    def _message(chat_id: int, message_id: int, text: str) -> dict[str, Any]:
        return {"message_id": message_id, "date": int(time.time()), "text": text, "from": BOT_USER,
                "chat": {"id": chat_id, "type": "private"}}

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep the test output quiet
                pass

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()
                prefix = f"/bot{fake.token}/"
                if not self.path.startswith(prefix):
                    return self._reply(404, {"ok": False, "error_code": 404, "description": "Not Found"})
                method = self.path[len(prefix):]
                if self.headers.get("Content-Type", "").startswith("application/json"):
                    params = {k: v if isinstance(v, str) else json.dumps(v) for k, v in json.loads(raw or "{}").items()}
                else:
                    params = dict(parse_qsl(raw))
                with fake._cond:
                    fake.calls.append(Call(method, params, time.monotonic()))
                try:
                    self._reply(200, {"ok": True, "result": fake._answer(method, params)})
                except ConflictError as exc:
                    self._reply(409, {"ok": False, "error_code": 409, "description": exc.args[0]})
                except LookupError as exc:
                    self._reply(400, {"ok": False, "error_code": 400, "description": exc.args[0]})

            do_GET = do_POST

            def _reply(self, code: int, payload: dict[str, Any]) -> None:
                body = json.dumps(payload).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                try:
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # a long poll the bot abandoned while stopping

        return Handler
