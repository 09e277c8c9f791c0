"""One answer for every bad credential, on the real server (issue 34): h11 refuses a header holding a NUL byte
before the app sees it, and uvicorn's plain-text 400 made a token followed by NUL the one malformed credential not
answered 401. `ragctl serve` runs app/api/http_protocol.CredentialH11Protocol, which answers it like TokenGate."""

from __future__ import annotations

import json
import socket

import pytest
import uvicorn
from click.testing import CliRunner

from app.api.http_protocol import CredentialH11Protocol, refused_credential_path
from app.api.main import create_app
from app.auth import CONSOLE_COOKIE, csrf_token
from app.cli.root import CliEnv, cli

from .conftest import TOKEN
from .servers import serve


def raw(port: int, head: bytes) -> tuple[int, dict[bytes, bytes], bytes]:
    """Send one request head as bytes (no client library would send a NUL) and read the whole answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(head)
        data = b""
        while chunk := conn.recv(65536):
            data += chunk
    head_part, _, body = data.partition(b"\r\n\r\n")
    status_line, *lines = head_part.split(b"\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(b":") for line in lines)}
    return int(status_line.split()[1]), headers, body


def request(path: str, *headers: bytes) -> bytes:
    return b"\r\n".join([f"GET {path} HTTP/1.1".encode(), b"Host: test", *headers, b"Connection: close", b"", b""])


BAD_CREDENTIALS = [
    b"Authorization: Bearer " + TOKEN.encode() + b"\x00",  # the attacker's case: the right token, then NUL
    b"Authorization: Bearer \x00" + TOKEN.encode(),
    b"Authorization: Bearer te\x00st",
    b"Authorization: \x00",
    b"Authorization: Basic \x00",
    b"Authorization: Bearer wrong",  # and the ones that always were 401, for the comparison
    b"Authorization: Bearer " + TOKEN.encode() + b"\x01",
    b"Authorization: Bearer " + TOKEN.encode() + b"\x7f",
    b"Authorization: Bearer " + TOKEN.encode() + b"\xff",
    b"Authorization: Bearer " + b"x" * 8000,
    b"Authorization: Bearer",
    b"Authorization: Token " + TOKEN.encode(),
]


@pytest.fixture
def server(api_settings, sqlite_engine):
    with serve(create_app(api_settings, engine=sqlite_engine), http=CredentialH11Protocol) as url:
        yield int(url.rsplit(":", 1)[1])


@pytest.mark.parametrize("credential", BAD_CREDENTIALS)
@pytest.mark.parametrize("path", ["/api/v1/token", "/api/v1/tasks?limit=1"])
def test_every_malformed_credential_answers_the_same_401(server, credential, path):
    status, headers, body = raw(server, request(path, credential))
    assert status == 401
    assert headers[b"www-authenticate"] == b"Bearer"
    assert json.loads(body) == {"detail": "missing or invalid bearer token"}


def test_under_v1_the_refusal_is_openais_error_object(server):
    status, _, body = raw(server, request("/v1/models", b"Authorization: Bearer " + TOKEN.encode() + b"\x00"))
    plain_status, _, plain_body = raw(server, request("/v1/models", b"Authorization: Bearer wrong"))
    assert status == plain_status == 401 and json.loads(body) == json.loads(plain_body)
    assert json.loads(body)["error"]["message"] == "missing or invalid bearer token"


def test_a_console_cookie_or_csrf_value_holding_nul_is_401_too(server):
    cookie = f"Cookie: {CONSOLE_COOKIE}={TOKEN}".encode()
    csrf = f"X-CSRF-Token: {csrf_token(TOKEN)}".encode()
    assert raw(server, request("/api/v1/token", cookie, csrf))[0] == 200  # the session itself works
    for head in (request("/api/v1/token", cookie + b"\x00", csrf), request("/api/v1/token", cookie, csrf + b"\x00")):
        status, headers, _ = raw(server, head)
        assert status == 401 and headers[b"www-authenticate"] == b"Bearer"


def test_the_right_token_still_works_and_nul_never_reaches_the_app(server):
    assert raw(server, request("/api/v1/token", b"Authorization: Bearer " + TOKEN.encode()))[0] == 200
    # A NUL byte anywhere else keeps uvicorn's 400: it is a malformed request, not a malformed credential.
    for head in (request("/api/v1/token", b"Authorization: Bearer " + TOKEN.encode(), b"X-Other: a\x00b"),
                 request("/healthz", b"Authorization: Bearer x\x00"),
                 b"GET /api/v1/token HTTP/1.1\r\nHost: test\r\nAuthor\x00ization: Bearer x\r\n\r\n"):
        assert raw(server, head)[0] == 400


def test_what_is_told_apart_from_the_head_alone():
    assert refused_credential_path(request("/api/v1/search?x=1", b"Authorization: Bearer a\x00")) == "/api/v1/search"
    assert refused_credential_path(request("/mcp", b"authorization: Bearer a\x00")) == "/mcp"
    assert refused_credential_path(request("/api/v1/token", b"Authorization: Bearer a")) is None  # nothing refused
    assert refused_credential_path(request("/docs", b"Authorization: Bearer a\x00")) is None  # not protected
    assert refused_credential_path(b"GET /api/v1/token HTTP/1.1\r\nAuthorization: a\x00\r\n") is None  # no end
    # a second defect besides the NUL (no Host in HTTP/1.1): h11's own 400 stands
    assert refused_credential_path(b"GET /api/v1/token HTTP/1.1\r\nAuthorization: a\x00\r\n\r\n") is None


def test_ragctl_serve_runs_the_credential_aware_protocol(monkeypatch, api_settings, sqlite_engine):
    ran = {}
    monkeypatch.setattr(uvicorn, "run", lambda app, **kwargs: ran.update(kwargs))
    result = CliRunner().invoke(cli, ["serve", "--port", "8123"], obj=CliEnv(api_settings, sqlite_engine),
                                catch_exceptions=False)
    assert result.exit_code == 0 and ran["http"] is CredentialH11Protocol and ran["port"] == 8123
