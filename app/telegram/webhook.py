"""The webhook Telegram posts updates to: it judges a request by its headers before it reads the body.

python-telegram-bot's own webhook server lets tornado read the whole body (up to 100 MB) before the handler
checks the secret, so anyone who reached the port could make the bot hold hundreds of MiB with posts it then
refused, and a body that was not JSON (or too deep, or not UTF-8) became a 500 with a traceback. Here the
handler streams the body (``stream_request_body``) and decides in ``prepare``, which tornado runs once the
headers are in: no secret → 403, no Content-Length → 411, more than the cap → 413, each before one byte of
the body is read (tornado then closes the connection rather than drain it). The body it does read is at most
the cap; a malformed update is a 400. Telegram sends each update once, but a replayed one (a retry that
crossed our 200, or a copy posted by someone holding the secret) must not be answered twice: the last
``SEEN_UPDATES`` update ids are remembered and a repeat is acknowledged and dropped.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import re
from collections import OrderedDict
from http import HTTPStatus
from typing import Any

import tornado.web
from tornado.httpserver import HTTPServer
from telegram import Bot, Update

log = logging.getLogger(__name__)

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
SEEN_UPDATES = 10_000  # update ids remembered (Telegram's are increasing; a replay comes soon after)
BODY_TIMEOUT_S = 30.0  # a client that sends its body slower than this is cut off


class SeenUpdates:
    """A bounded record of update ids already taken: the oldest is forgotten past ``capacity``."""

    def __init__(self, capacity: int = SEEN_UPDATES) -> None:
        self.capacity = capacity
        self._ids: OrderedDict[int, None] = OrderedDict()

    def first_time(self, update_id: int) -> bool:
        """True the first time ``update_id`` is seen (and remembers it); False for a repeat."""
        if update_id in self._ids:
            return False
        self._ids[update_id] = None
        if len(self._ids) > self.capacity:
            self._ids.popitem(last=False)
        return True


class MalformedUpdate(ValueError):
    """The body is not one Telegram update (not UTF-8, not JSON, too deep, not an object, no update_id)."""


def parse_update(body: bytes, bot: Bot) -> Update:
    try:
        data = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:  # RecursionError: JSON nested too deep
        raise MalformedUpdate(f"not a JSON document ({type(exc).__name__})") from None
    if not isinstance(data, dict) or type(data.get("update_id")) is not int:
        raise MalformedUpdate("not an update (a JSON object with an integer update_id)")
    try:
        return Update.de_json(data, bot)
    except Exception as exc:  # python-telegram-bot refuses fields of the wrong shape in many ways
        raise MalformedUpdate(f"not an update ({type(exc).__name__})") from None


@tornado.web.stream_request_body
class UpdateHandler(tornado.web.RequestHandler):
    SUPPORTED_METHODS = ("POST",)  # type: ignore[assignment]

    def initialize(self, receiver: WebhookReceiver) -> None:
        self.receiver = receiver
        self.body = bytearray()

    def prepare(self) -> None:
        """Runs when the headers are in and before the body is read: a refusal here reads none of it."""
        given = self.request.headers.get(SECRET_HEADER, "")
        if not hmac.compare_digest(given.encode(), self.receiver.secret.encode()):
            raise tornado.web.HTTPError(HTTPStatus.FORBIDDEN)
        length = self.request.headers.get("Content-Length")
        if length is None or not (length.isascii() and length.isdigit()):
            raise tornado.web.HTTPError(HTTPStatus.LENGTH_REQUIRED)
        if int(length) > self.receiver.max_body_bytes:
            raise tornado.web.HTTPError(HTTPStatus.REQUEST_ENTITY_TOO_LARGE)
        self.request.connection.set_max_body_size(self.receiver.max_body_bytes)

    def data_received(self, chunk: bytes) -> None:
        self.body += chunk  # at most Content-Length bytes, which is at most the cap (tornado holds it to it)

    async def post(self) -> None:
        try:
            update = parse_update(bytes(self.body), self.receiver.bot)
        except MalformedUpdate as exc:
            log.warning("webhook: refused a malformed update: %s", exc)
            raise tornado.web.HTTPError(HTTPStatus.BAD_REQUEST) from None
        if self.receiver.seen.first_time(update.update_id):
            await self.receiver.queue.put(update)
        else:
            log.info("webhook: update %d was already taken; not answered again", update.update_id)
        self.set_status(HTTPStatus.OK)

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        self.finish()  # the status says it; no traceback, no HTML page

    def log_exception(self, typ, value, tb) -> None:  # type: ignore[no-untyped-def]
        if isinstance(value, tornado.web.HTTPError):
            return  # a refusal, already logged where it had something to say
        super().log_exception(typ, value, tb)


class WebhookReceiver:
    """Listens on ``listen:port`` at ``path`` and puts each accepted update on ``queue`` (the Application's)."""

    def __init__(self, *, listen: str, port: int, path: str, secret: str, max_body_bytes: int, bot: Bot,
                 queue: asyncio.Queue) -> None:
        self.listen, self.port, self.secret, self.max_body_bytes = listen, port, secret, max_body_bytes
        self.bot, self.queue, self.seen = bot, queue, SeenUpdates()
        app = tornado.web.Application([(re.escape(path.rstrip("/")) + "/?", UpdateHandler, {"receiver": self})],
                                      log_function=lambda handler: None)
        self._server = HTTPServer(app, max_body_size=max_body_bytes, body_timeout=BODY_TIMEOUT_S,
                                  idle_connection_timeout=BODY_TIMEOUT_S)

    def start(self) -> None:
        """Bind the port (an ``OSError`` if it is taken) and start answering."""
        self._server.listen(self.port, address=self.listen)

    async def stop(self) -> None:
        self._server.stop()
        await self._server.close_all_connections()
