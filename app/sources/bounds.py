"""What bounds one pass of a tracker (issue 33): a wall-clock budget per response (total, not per read) and per
pass, a byte cap per response (read streamed, never the whole body first) and per pass, a page cap per pass,
a comment cap per issue; and the rules that keep a token at its origin (sent only to the tracker's own
scheme://host:port, https required except on loopback unless explicitly allowed).

Pure: no I/O. ``PassBounds`` is the settings' numbers; ``PassMeter`` counts one pass against them.
"""

from __future__ import annotations

import ipaddress
import logging
import time
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import httpx

MIB = 1024 * 1024


log = logging.getLogger(__name__)


class SourceError(RuntimeError):
    """A tracker could not be read; the message says what to check. Nothing of the failed page is written."""


class SourceBoundError(SourceError):
    """A pass hit one of its bounds (time, bytes, pages, comments) or the server made no progress: the pass ends,
    the pages already written stay, and the next pass resumes from their cursor."""


RESUMES = "the pages already written stay; the next pass resumes from their cursor"


@dataclass(frozen=True)
class PassBounds:
    response_s: float = 120.0  # one response, headers to last byte
    response_bytes: int = 16 * MIB
    pass_s: float = 3600.0
    pass_bytes: int = 4096 * MIB
    pass_pages: int = 5000  # responses read in one pass (every listing's pages, comment pages, lookups)
    issue_comments: int = 5000  # comments read for one issue


@dataclass
class PassMeter:
    """One pass's use of its bounds (a client serves one pass: the clock starts when it is made)."""

    bounds: PassBounds = field(default_factory=PassBounds)
    clock: Callable[[], float] = time.monotonic
    started: float = 0.0
    pages: int = 0
    bytes: int = 0

    def __post_init__(self) -> None:
        self.started = self.clock()

    def pass_left(self) -> float:
        return self.bounds.pass_s - (self.clock() - self.started)

    def response_deadline(self) -> float:
        """When the response about to be read must be whole: its own budget, within the pass's."""
        return self.clock() + min(self.bounds.response_s, max(0.0, self.pass_left()))

    def check_pass(self, where: str) -> None:
        if self.pass_left() <= 0:
            raise SourceBoundError(f"{where}: the pass used its whole budget of {self.bounds.pass_s:g} s "
                                   f"(RAG_SYNC_PASS_BUDGET_S); {RESUMES}")
        if self.pages >= self.bounds.pass_pages:
            raise SourceBoundError(f"{where}: the pass read its maximum of {self.bounds.pass_pages} pages "
                                   f"(RAG_SYNC_MAX_PAGES); {RESUMES}")

    def check_wait(self, seconds: float, where: str) -> None:
        """A retry wait that would outlast the pass ends it now instead."""
        if seconds >= self.pass_left():
            raise SourceBoundError(f"{where}: a retry in {seconds:.0f} s would outlast the pass's budget of "
                                   f"{self.bounds.pass_s:g} s (RAG_SYNC_PASS_BUDGET_S); {RESUMES}")

    def take(self, size: int, where: str) -> None:
        """``size`` more bytes of the current response arrived."""
        self.bytes += size
        if self.bytes > self.bounds.pass_bytes:
            raise SourceBoundError(f"{where}: the pass read its maximum of {self.bounds.pass_bytes} bytes "
                                   f"(RAG_SYNC_MAX_PASS_BYTES); {RESUMES}")

    def comments_full(self, count: int, issue: str) -> bool:
        """Whether an issue's comments read so far reach the per-issue cap: its first ones are kept and the issue is
        written with them (a warning names it), never the pass ended — one issue must not hold every later change."""
        if count < self.bounds.issue_comments:
            return False
        log.warning("%s lists %d or more comments: its first %d are kept (RAG_SYNC_MAX_COMMENTS_PER_ISSUE)",
                    issue, count, self.bounds.issue_comments)
        return True


def no_progress(where: str, why: str) -> SourceBoundError:
    return SourceBoundError(f"{where}: the server made no progress ({why}); {RESUMES}")


# --- credentials only to their origin -------------------------------------------------------------

def origin(url: str | httpx.URL) -> tuple[str, str, int | None]:
    """scheme, host, port (the default port made explicit): what a token is bound to."""
    parts = httpx.URL(str(url))
    port = parts.port or {"https": 443, "http": 80}.get(parts.scheme)
    return parts.scheme, (parts.host or "").lower(), port


def is_loopback(host: str) -> bool:
    host = host.strip("[]").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_tracker_url(url: str, *, allow_http: bool = False, setting: str = "the tracker URL") -> str:
    """``url`` when its scheme may carry a token: https, or http on loopback, or http with RAG_SYNC_ALLOW_HTTP."""
    parts = urlsplit(url or "")
    if parts.scheme not in ("https", "http") or not parts.hostname:
        raise ValueError(f"{setting} must be an https:// URL, got {url!r}")
    if parts.scheme == "http" and not allow_http and not is_loopback(parts.hostname):
        raise ValueError(f"{setting} is http:// ({url}): a token would cross the network in clear. Use https://, "
                         "or set RAG_SYNC_ALLOW_HTTP=true if this network is trusted")
    return url


class OriginAuth(httpx.Auth):
    """Sets the credentials on a request to the tracker's own origin, and on no other: a Link header or a
    redirect to another host gets the request without them (httpx also strips them on a cross-origin redirect)."""

    def __init__(self, base_url: str, header: str | None = None, basic: httpx.BasicAuth | None = None) -> None:
        self.origin, self.header, self.basic = origin(base_url), header, basic

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        request.headers.pop("Authorization", None)
        if origin(request.url) == self.origin:
            if self.header is not None:
                request.headers["Authorization"] = self.header
            elif self.basic is not None:
                yield from self.basic.auth_flow(request)
                return
        yield request
