"""Logging: one JSON object per line (or plain text for development) and the request id of each line.

The request id lives in a contextvar: the HTTP middleware sets it for a request (from a sane
``X-Request-ID`` or a new one), FastAPI's thread pool copies it into sync endpoints, and the worker
sets it for a drain run that a request's nudge caused. A filter on our handler stamps every record.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import re
import sys
import uuid
from collections.abc import Iterable
from contextvars import ContextVar
from typing import IO, Literal

request_id_var: ContextVar[str | None] = ContextVar("request_id", default=None)

# What we accept from a client: short, no spaces or control characters, nothing that could forge a
# log line or a header. Anything else is replaced by an id of our own.
_SANE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,63}")
# LogRecord's own attributes; anything else on a record came from ``extra=`` and goes into the JSON.
_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {
    "message", "asctime", "request_id", "color_message",  # uvicorn repeats each message with ANSI colours
}


def accept_request_id(offered: str | None) -> str:
    """The client's id when it is a sane short token, else a fresh one."""
    if offered and _SANE_ID.fullmatch(offered):
        return offered
    return uuid.uuid4().hex


def current_request_id() -> str | None:
    return request_id_var.get()


class RequestIdFilter(logging.Filter):
    """Stamp ``record.request_id`` from the contextvar (None outside a request or a caused run)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            record.request_id = request_id_var.get()
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time (UTC, ISO 8601), level, logger, message, request_id, extras, exc."""

    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "time": dt.datetime.fromtimestamp(record.created, dt.timezone.utc).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "request_id": getattr(record, "request_id", None),
        }
        for key, value in vars(record).items():
            if key not in _STANDARD and not key.startswith("_"):
                entry[key] = value
        if record.exc_info:
            entry["exc_info"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str, ensure_ascii=False)


TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s [%(request_id)s]: %(message)s"
REDACTED = "[redacted]"


def redact(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every secret replaced, as written and as JSON escapes it."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, REDACTED).replace(json.dumps(secret, ensure_ascii=False)[1:-1], REDACTED)
    return text


class RedactingFormatter(logging.Formatter):
    """Another formatter's lines, with secrets removed: a token can hide in a URL a library logs (the
    Telegram Bot API's URLs hold the bot token) or in an exception's message."""

    def __init__(self, inner: logging.Formatter, secrets: Iterable[str]) -> None:
        super().__init__()
        self.inner, self.secrets = inner, tuple(s for s in secrets if s)

    def format(self, record: logging.LogRecord) -> str:
        return redact(self.inner.format(record), self.secrets)


def handler(log_format: Literal["json", "text"], stream: IO[str] | None = None,
            secrets: Iterable[str] = ()) -> logging.Handler:
    out = logging.StreamHandler(stream or sys.stderr)
    out.addFilter(RequestIdFilter())
    formatter = JsonFormatter() if log_format == "json" else logging.Formatter(TEXT_FORMAT)
    out.setFormatter(RedactingFormatter(formatter, secrets) if secrets else formatter)
    return out


def configure(log_format: Literal["json", "text"], level: int = logging.INFO, secrets: Iterable[str] = ()) -> None:
    """Replace the root handlers with one of ours (uvicorn's loggers propagate to it); ``secrets`` never
    appear in a line."""
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler(log_format, secrets=secrets))
    root.setLevel(level)
    # APScheduler logs two INFO lines per run of the drain job; the worker logs what a run did itself.
    logging.getLogger("apscheduler").setLevel(logging.WARNING)
