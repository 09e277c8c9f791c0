"""The HTTP/1.1 protocol ``ragctl serve`` runs: uvicorn's h11 protocol, with one answer for a bad credential.

h11 refuses a header line holding a NUL byte before the application sees the request ("we still don't allow NUL
... those are often treated as meta-characters", h11/_abnf.py), and uvicorn answers that with a plain-text 400. So a
token followed by a NUL byte got 400 where every other malformed credential gets the API's 401 (issue 34, the auth
sweep). ``CredentialH11Protocol`` keeps h11's refusal (the request never reaches the application, no NUL byte is
let through) but answers it like TokenGate when the only defect of the refused head is a NUL byte in a credential
header (Authorization, Cookie, X-CSRF-Token) of a protected path: 401, ``WWW-Authenticate: Bearer``, the same body
(OpenAI's error object under /v1/). Every other malformed request keeps uvicorn's 400.
"""

from __future__ import annotations

import re
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from app.api.middleware import protected, unauthorized
from app.auth import CSRF_HEADER

CREDENTIAL_HEADERS = frozenset({b"authorization", b"cookie", CSRF_HEADER.encode()})
REFUSAL = "missing or invalid bearer token"  # TokenGate's, for a token that matches no grant
_HEAD_END = re.compile(rb"\r?\n\r?\n")
_LINE_END = re.compile(rb"\r?\n")


def refused_credential_path(head: bytes) -> str | None:
    """The path of a request whose head h11 refuses only for a NUL byte in a credential header, on a protected
    path; None for any other head (another defect, a NUL elsewhere, an unprotected path, no NUL at all)."""
    end = _HEAD_END.search(head)
    if end is None:
        return None
    request_line, *fields = _LINE_END.split(head[:end.start()])
    cleaned, tainted = [request_line], False
    for line in fields:
        name, colon, _ = line.partition(b":")
        if b"\x00" in line:
            if not colon or b"\x00" in name or name.strip().lower() not in CREDENTIAL_HEADERS:
                return None
            line, tainted = name + b": refused", True
        cleaned.append(line)
    if not tainted:
        return None
    probe = h11.Connection(h11.SERVER)  # the same parser, on the head without the NUL bytes
    probe.receive_data(b"\r\n".join(cleaned) + b"\r\n\r\n")
    try:
        event = probe.next_event()
    except h11.RemoteProtocolError:
        return None
    if not isinstance(event, h11.Request):
        return None
    path = event.target.decode("latin-1").split("?", 1)[0]
    return path if protected(path) else None


class CredentialH11Protocol(H11Protocol):
    """uvicorn's h11 protocol; a head refused for a NUL byte in a credential is answered 401, not 400."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._head = b""
        parse = self.conn.next_event

        def next_event() -> Any:
            # While the client is between requests, h11's unparsed bytes are the head it is about to read (or
            # refuse): keep them, so a refusal can be told apart. Bounded by h11's own incomplete-event limit.
            if self.conn.their_state is h11.IDLE:
                self._head = self.conn.trailing_data[0]
            return parse()

        self.conn.next_event = next_event  # type: ignore[method-assign]

    def send_400_response(self, msg: str) -> None:
        path = refused_credential_path(self._head)
        if path is None:
            super().send_400_response(msg)
            return
        response = unauthorized(REFUSAL, path)
        headers = [*response.raw_headers, (b"connection", b"close")]
        for event in (h11.Response(status_code=401, headers=headers, reason=b"Unauthorized"),
                      h11.Data(data=response.body), h11.EndOfMessage()):
            self.transport.write(self.conn.send(event))
        self.transport.close()
