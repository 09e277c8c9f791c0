"""The one HTTP client every source uses: JSON GETs with retries that respect the server.

429 and 5xx (and a dropped connection) are retried after ``Retry-After`` when the server sends one, else
after an exponential backoff, each wait capped, at most ``max_retries`` times. GitHub's rate limits are
honoured: a 403/429 with ``Retry-After`` (the secondary limit) waits that long, and ``x-ratelimit-remaining:
0`` waits until ``x-ratelimit-reset`` — or fails at once with the time to come back when that is further
away than the cap. 401, 403 and 404 are a clear error at once: a wrong token must not become a retry storm.
Conditional requests: a response's ETag is kept per URL, sent back as ``If-None-Match``, and a 304 (which
GitHub does not count against the limit) answers with the body kept (at most ``MAX_ETAG_BYTES`` of bodies kept).

Bounds (app/sources/bounds.py, issue 33): a body is read streamed against a byte cap and a deadline for the whole
response (each read waits at most what is left of it, so a server trickling a byte every few seconds is cut), and
every request is counted against the pass's time, byte and page budgets; a bound hit is a ``SourceBoundError``,
never retried. Credentials go only to the base URL's origin (``OriginAuth``).

Stopping (``ragctl serve`` shutting down): ``abort`` from another thread ends the pass at once — the sockets the
client opened are shut down (a read waiting on a server that never answers returns), a retry's wait is cut, and
every request after it raises ``SourceStoppedError``; what the pass wrote stays and the next start resumes.
"""

from __future__ import annotations

import email.utils
import json
import logging
import socket
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

import httpx

from app.sources.bounds import (OriginAuth, PassBounds, PassMeter, SourceBoundError, SourceError,
                                check_tracker_url)

__all__ = ["SourceAuthError", "SourceBoundError", "SourceClient", "SourceError", "SourceNotFoundError",
           "SourceStoppedError"]

log = logging.getLogger(__name__)

MAX_ETAGS = 2000  # answers kept for conditional requests (a listing's pages, changed issues' comment lists)
MAX_ETAG_BYTES = 8 * 1024 * 1024  # and at most this many bytes of their bodies (as read)


class SourceAuthError(SourceError):
    """401 / 403: the credentials are wrong or lack a permission."""


class SourceNotFoundError(SourceError):
    """404: the URL, project or repository does not exist (or the credentials may not see it)."""


class SourceStoppedError(SourceError):
    """The client was stopped (``abort``) mid-pass: the pages already written stay, the next pass resumes."""


# httpcore's trace events whose return value is a connection's network stream (connect, then TLS on top of it)
_STREAM_EVENTS = ("connection.connect_tcp.complete", "connection.start_tls.complete")


class SourceClient:
    """A client serves one pass: its bounds' clock starts when it is made. ``authorization`` (a header value) or
    ``basic`` is sent only to ``base_url``'s origin."""

    def __init__(self, base_url: str, headers: Mapping[str, str] | None = None, *, authorization: str | None = None,
                 basic: httpx.BasicAuth | None = None, max_retries: int = 5, backoff_s: float = 1.0,
                 max_wait_s: float = 60.0, timeout_s: float = 30.0, bounds: PassBounds | None = None,
                 allow_http: bool = False, sleep: Callable[[float], object] | None = None) -> None:
        self.base_url = check_tracker_url(base_url, allow_http=allow_http).rstrip("/")
        self.max_retries, self.backoff_s, self.max_wait_s = max_retries, backoff_s, max_wait_s
        self._stopped = threading.Event()
        self._sockets: list[socket.socket] = []  # the connections' sockets, for abort
        self._sockets_lock = threading.Lock()
        # injectable so a test can record the waits the server asked for; by default a wait abort cuts
        self.sleep = sleep if sleep is not None else self._stopped.wait
        self.timeout_s = timeout_s
        self.meter = PassMeter(bounds or PassBounds())
        headers = {k: v for k, v in (headers or {}).items() if k.lower() != "authorization"}
        self._client = httpx.Client(base_url=self.base_url, headers={"Accept": "application/json", **headers},
                                    auth=OriginAuth(self.base_url, authorization, basic), timeout=timeout_s,
                                    follow_redirects=True, max_redirects=5)
        self._etags: dict[str, tuple[str, Any, httpx.Headers, int]] = {}
        self._etag_bytes = 0
        self.requests = 0
        self.not_modified = 0
        self.waits: list[float] = []

    def close(self) -> None:
        self._client.close()

    def abort(self) -> None:
        """Stop the pass from another thread: shut down every socket this client opened (a read blocked on a server
        that never answers returns at once), cut a retry's wait, and refuse every request after (``get`` raises
        ``SourceStoppedError``). ``close`` is still the owner's, after the pass ends."""
        self._stopped.set()
        with self._sockets_lock:
            sockets = list(self._sockets)
        for sock in sockets:
            _shut(sock)

    def _trace(self, event: str, info: Mapping[str, Any]) -> None:
        """httpcore's trace hook (the ``trace`` request extension): keep each new connection's socket for abort."""
        if event not in _STREAM_EVENTS:
            return
        stream = info.get("return_value")
        sock = stream.get_extra_info("socket") if stream is not None else None
        if not isinstance(sock, socket.socket):
            return
        with self._sockets_lock:
            self._sockets = [s for s in self._sockets if s.fileno() != -1] + [sock]  # closed ones dropped
        if self._stopped.is_set():  # aborted while this connection was being made
            _shut(sock)

    def _check_stopped(self, where: str) -> None:
        if self._stopped.is_set():
            raise SourceStoppedError(f"{where}: the sync was stopped (the server is shutting down); the pages "
                                     "already written stay; the next pass resumes from their cursor")

    def __enter__(self) -> SourceClient:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def url_of(self, url: str, params: Mapping[str, Any] | None = None) -> httpx.URL:
        """The absolute URL a GET of ``url`` with ``params`` requests."""
        return self._client.build_request("GET", url, params=params).url

    def get_json(self, url: str, params: Mapping[str, Any] | None = None) -> Any:
        return self.get(url, params)[0]

    def get(self, url: str, params: Mapping[str, Any] | None = None) -> tuple[Any, httpx.Headers]:
        """The JSON body and the headers of a GET (``url`` relative to the base, or absolute as in a Link
        header), retried as the module docstring says, within the pass's bounds."""
        request = self._client.build_request("GET", url, params=params)
        cache_key = str(request.url)
        cached = self._etags.get(cache_key)
        if cached is not None:
            request.headers["If-None-Match"] = cached[0]
        for attempt in range(self.max_retries + 1):
            self._check_stopped(self._where(request))
            self.meter.check_pass(self._where(request))
            self.requests += 1
            try:
                status, body, headers, size = self._send(request)
            except httpx.TransportError as exc:
                self._check_stopped(self._where(request))  # the abort cut this connection: not a server fault
                if attempt == self.max_retries:
                    raise SourceError(f"{self._where(request)}: {type(exc).__name__}: {exc} "
                                      f"(after {attempt + 1} attempts)") from None
                self._wait(self._backoff(attempt), request, "connection failed")
                continue
            self.meter.pages += 1
            if status == 304 and cached is not None:
                self.not_modified += 1
                return cached[1], cached[2]  # the kept body, with its Link header
            if status < 300:
                self._keep(cache_key, headers, body, size)
                return body, headers
            wait = self._retry_wait(status, headers, request, attempt)
            if wait is None:
                raise self._error(status, body, request)
            if attempt == self.max_retries:
                raise SourceError(f"{self._where(request)} answered {status} {attempt + 1} times; "
                                  "giving up for this pass (nothing of this page was written)")
            self._wait(wait, request, f"HTTP {status}")
        raise AssertionError("unreachable")

    def _send(self, request: httpx.Request) -> tuple[int, Any, httpx.Headers, int]:
        """Status, body (JSON for a 2xx, the first bytes as text otherwise), headers and size of one response,
        read streamed within its deadline and byte cap."""
        deadline = self.meter.response_deadline()
        read_wait = max(0.001, min(self.timeout_s, deadline - self.meter.clock()))
        request.extensions["timeout"] = httpx.Timeout(read_wait).as_dict()  # each read waits at most what is left
        request.extensions["trace"] = self._trace
        where = self._where(request)
        try:
            response = self._client.send(request, stream=True)
        except httpx.TimeoutException:
            self._check_deadline(deadline, where)
            raise
        try:
            data = self._read(response, deadline, where)
        finally:
            response.close()
        self._check_stopped(where)  # a body the abort cut short is never taken for the whole of it
        if response.status_code >= 300:
            return response.status_code, data[:200].decode("utf-8", "replace"), response.headers, len(data)
        try:
            return response.status_code, json.loads(data), response.headers, len(data)
        except ValueError:
            raise SourceError(f"{where} did not answer JSON "
                              f"({response.headers.get('content-type', 'no content type')})") from None

    def _read(self, response: httpx.Response, deadline: float, where: str) -> bytes:
        cap = self.meter.bounds.response_bytes
        declared = response.headers.get("Content-Length", "")
        if declared.isdigit() and int(declared) > cap:
            raise SourceBoundError(f"{where}: the response declares {declared} bytes, over the maximum of {cap} "
                                   "(RAG_SYNC_MAX_RESPONSE_BYTES); the next pass resumes from the stored cursor")
        parts, size = [], 0
        try:
            for chunk in response.iter_bytes():  # as it arrives (a chunk size would wait to fill it)
                size += len(chunk)
                self.meter.take(len(chunk), where)
                if size > cap:
                    raise SourceBoundError(f"{where}: the response is over the maximum of {cap} bytes "
                                           "(RAG_SYNC_MAX_RESPONSE_BYTES); the next pass resumes from the stored "
                                           "cursor")
                self._check_deadline(deadline, where)
                parts.append(chunk)
        except httpx.TimeoutException:
            self._check_deadline(deadline, where)
            raise
        return b"".join(parts)

    def _check_deadline(self, deadline: float, where: str) -> None:
        if self.meter.clock() >= deadline:
            self.meter.check_pass(where)  # the pass's own budget, when that is what ran out
            raise SourceBoundError(f"{where}: the response took longer than {self.meter.bounds.response_s:g} s "
                                   "(RAG_SYNC_RESPONSE_TIMEOUT_S); the next pass resumes from the stored cursor")

    def _keep(self, cache_key: str, headers: httpx.Headers, body: Any, size: int) -> None:
        """Keep an answer with an ETag for conditional requests, within MAX_ETAGS and MAX_ETAG_BYTES."""
        old = self._etags.pop(cache_key, None)
        if old is not None:
            self._etag_bytes -= old[3]
        if not headers.get("ETag") or size > MAX_ETAG_BYTES:
            return
        while self._etags and (len(self._etags) >= MAX_ETAGS or self._etag_bytes + size > MAX_ETAG_BYTES):
            self._etag_bytes -= self._etags.pop(next(iter(self._etags)))[3]  # drop the oldest kept answer
        self._etags[cache_key] = (headers["ETag"], body, headers, size)
        self._etag_bytes += size

    def _retry_wait(self, code: int, headers: httpx.Headers, request: httpx.Request, attempt: int) -> float | None:
        """How long to wait before retrying this response, or None when it must not be retried."""
        limited = headers.get("x-ratelimit-remaining") == "0" and headers.get("x-ratelimit-reset")
        if code in (403, 429) and limited and "Retry-After" not in headers:
            wait = max(0.0, float(headers["x-ratelimit-reset"]) - time.time()) + 1.0
            if wait > self.max_wait_s:
                reset = time.strftime("%H:%M:%S UTC", time.gmtime(float(headers["x-ratelimit-reset"])))
                raise SourceError(f"{request.url.host}: the API rate limit is used up until {reset}; "
                                  "the next pass resumes from the stored cursor")
            return wait
        if code == 429 or code >= 500 or (code == 403 and "Retry-After" in headers):
            after = _retry_after(headers.get("Retry-After"))
            return min(self.max_wait_s, after if after is not None else self._backoff(attempt))
        return None

    def _backoff(self, attempt: int) -> float:
        return min(self.max_wait_s, self.backoff_s * 2 ** attempt)

    def _wait(self, seconds: float, request: httpx.Request, why: str) -> None:
        self.meter.check_wait(seconds, self._where(request))
        log.warning("%s: %s, retrying in %.1f s", self._where(request), why, seconds)
        self.waits.append(seconds)
        self.sleep(seconds)
        self._check_stopped(self._where(request))

    def _error(self, code: int, text: str, request: httpx.Request) -> SourceError:
        where = self._where(request)
        if code == 401:
            return SourceAuthError(f"{where}: 401 Unauthorized — the token or API credentials are wrong or expired")
        if code == 403:
            return SourceAuthError(f"{where}: 403 Forbidden — the credentials may not read this (check the "
                                   "account's permissions)")
        if code == 404:
            return SourceNotFoundError(f"{where}: 404 Not Found — check the URL, the project keys or the repository")
        detail = text.replace("\n", " ")
        return SourceError(f"{where}: HTTP {code}: {detail}")

    @staticmethod
    def _where(request: httpx.Request) -> str:
        return f"GET {request.url.copy_with(query=None)}"


def _shut(sock: socket.socket) -> None:
    """Shut a socket down for both directions: a recv blocked on it in another thread returns (close alone does
    not wake it). A socket already closed or never connected is left alone."""
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass


def _retry_after(value: str | None) -> float | None:
    """Retry-After as seconds: a number, or an HTTP date."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())
