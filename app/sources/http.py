"""The one HTTP client every source uses: JSON GETs with retries that respect the server.

429 and 5xx (and a dropped connection) are retried after ``Retry-After`` when the server sends one, else
after an exponential backoff, each wait capped, at most ``max_retries`` times. GitHub's rate limits are
honoured: a 403/429 with ``Retry-After`` (the secondary limit) waits that long, and ``x-ratelimit-remaining:
0`` waits until ``x-ratelimit-reset`` — or fails at once with the time to come back when that is further
away than the cap. 401, 403 and 404 are a clear error at once: a wrong token must not become a retry storm.
Conditional requests: a response's ETag is kept per URL, sent back as ``If-None-Match``, and a 304 (which
GitHub does not count against the limit) answers with the body kept.
"""

from __future__ import annotations

import email.utils
import logging
import time
from collections.abc import Callable, Mapping
from typing import Any

import httpx

log = logging.getLogger(__name__)

MAX_ETAGS = 2000  # answers kept for conditional requests (a listing's pages, changed issues' comment lists)


class SourceError(RuntimeError):
    """A tracker could not be read; the message says what to check. Nothing of the failed page is written."""


class SourceAuthError(SourceError):
    """401 / 403: the credentials are wrong or lack a permission."""


class SourceNotFoundError(SourceError):
    """404: the URL, project or repository does not exist (or the credentials may not see it)."""


class SourceClient:
    def __init__(self, base_url: str, headers: Mapping[str, str] | None = None, *, auth: httpx.Auth | None = None,
                 max_retries: int = 5, backoff_s: float = 1.0, max_wait_s: float = 60.0, timeout_s: float = 30.0,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.base_url = base_url.rstrip("/")
        self.max_retries, self.backoff_s, self.max_wait_s = max_retries, backoff_s, max_wait_s
        self.sleep = sleep  # injectable so a test can record the waits the server asked for
        self._client = httpx.Client(base_url=self.base_url, headers={"Accept": "application/json", **(headers or {})},
                                    auth=auth, timeout=timeout_s, follow_redirects=True)
        self._etags: dict[str, tuple[str, Any, httpx.Headers]] = {}
        self.requests = 0
        self.not_modified = 0
        self.waits: list[float] = []

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> SourceClient:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def get_json(self, url: str, params: Mapping[str, Any] | None = None) -> Any:
        return self.get(url, params)[0]

    def get(self, url: str, params: Mapping[str, Any] | None = None) -> tuple[Any, httpx.Headers]:
        """The JSON body and the headers of a GET (``url`` relative to the base, or absolute as in a Link
        header), retried as the module docstring says."""
        request = self._client.build_request("GET", url, params=params)
        cache_key = str(request.url)
        cached = self._etags.get(cache_key)
        if cached is not None:
            request.headers["If-None-Match"] = cached[0]
        for attempt in range(self.max_retries + 1):
            self.requests += 1
            try:
                response = self._client.send(request)
            except httpx.TransportError as exc:
                if attempt == self.max_retries:
                    raise SourceError(f"{self._where(request)}: {type(exc).__name__}: {exc} "
                                      f"(after {attempt + 1} attempts)") from None
                self._wait(self._backoff(attempt), request, "connection failed")
                continue
            if response.status_code == 304 and cached is not None:
                self.not_modified += 1
                return cached[1], cached[2]  # the kept body, with its Link header
            if response.status_code < 300:
                body = self._json(response, request)
                if response.headers.get("ETag"):
                    if len(self._etags) >= MAX_ETAGS:  # bounded: drop the oldest kept answer
                        self._etags.pop(next(iter(self._etags)))
                    self._etags[cache_key] = (response.headers["ETag"], body, response.headers)
                return body, response.headers
            wait = self._retry_wait(response, attempt)
            if wait is None:
                raise self._error(response, request)
            if attempt == self.max_retries:
                raise SourceError(f"{self._where(request)} answered {response.status_code} {attempt + 1} times; "
                                  "giving up for this pass (nothing of this page was written)")
            self._wait(wait, request, f"HTTP {response.status_code}")
        raise AssertionError("unreachable")

    def _retry_wait(self, response: httpx.Response, attempt: int) -> float | None:
        """How long to wait before retrying this response, or None when it must not be retried."""
        code, headers = response.status_code, response.headers
        limited = headers.get("x-ratelimit-remaining") == "0" and headers.get("x-ratelimit-reset")
        if code in (403, 429) and limited and "Retry-After" not in headers:
            wait = max(0.0, float(headers["x-ratelimit-reset"]) - time.time()) + 1.0
            if wait > self.max_wait_s:
                reset = time.strftime("%H:%M:%S UTC", time.gmtime(float(headers["x-ratelimit-reset"])))
                raise SourceError(f"{response.request.url.host}: the API rate limit is used up until {reset}; "
                                  "the next pass resumes from the stored cursor")
            return wait
        if code == 429 or code >= 500 or (code == 403 and "Retry-After" in headers):
            after = _retry_after(headers.get("Retry-After"))
            return min(self.max_wait_s, after if after is not None else self._backoff(attempt))
        return None

    def _backoff(self, attempt: int) -> float:
        return min(self.max_wait_s, self.backoff_s * 2 ** attempt)

    def _wait(self, seconds: float, request: httpx.Request, why: str) -> None:
        log.warning("%s: %s, retrying in %.1f s", self._where(request), why, seconds)
        self.waits.append(seconds)
        self.sleep(seconds)

    def _json(self, response: httpx.Response, request: httpx.Request) -> Any:
        try:
            return response.json()
        except ValueError:
            raise SourceError(f"{self._where(request)} did not answer JSON "
                              f"({response.headers.get('content-type', 'no content type')})") from None

    def _error(self, response: httpx.Response, request: httpx.Request) -> SourceError:
        where, code = self._where(request), response.status_code
        if code == 401:
            return SourceAuthError(f"{where}: 401 Unauthorized — the token or API credentials are wrong or expired")
        if code == 403:
            return SourceAuthError(f"{where}: 403 Forbidden — the credentials may not read this (check the "
                                   "account's permissions)")
        if code == 404:
            return SourceNotFoundError(f"{where}: 404 Not Found — check the URL, the project keys or the repository")
        detail = response.text[:200].replace("\n", " ")
        return SourceError(f"{where}: HTTP {code}: {detail}")

    @staticmethod
    def _where(request: httpx.Request) -> str:
        return f"GET {request.url.copy_with(query=None)}"


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
