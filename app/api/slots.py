"""A non-blocking cap on concurrent slow requests: when full, answer 503 + Retry-After at once.

Queueing instead would only move the pile-up (and the client's timeout) elsewhere; a bot can
retry. All users run on the event loop thread, so a plain counter needs no lock.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from fastapi import HTTPException, status

RETRY_AFTER_S = 5


class Slots:
    def __init__(self, limit: int, what: str) -> None:
        self.limit, self.what, self.in_use = limit, what, 0

    @contextmanager
    def take(self) -> Iterator[None]:
        if self.in_use >= self.limit:
            raise HTTPException(
                status.HTTP_503_SERVICE_UNAVAILABLE,
                f"{self.limit} {self.what} already in progress; retry in {RETRY_AFTER_S} s",
                headers={"Retry-After": str(RETRY_AFTER_S)},
            )
        self.in_use += 1
        try:
            yield
        finally:
            self.in_use -= 1
