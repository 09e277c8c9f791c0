"""A POST written byte by byte on a socket, to see what a webhook reads before it answers.

``post`` sends the request line and headers, then the body (if any) only while the server is still
reading: as soon as the server answers, sending stops and the status is returned. A server that judges
a request by its headers answers before the body is sent at all; one that reads first takes it whole.
"""

from __future__ import annotations

import select
import socket
from urllib.parse import urlsplit

CHUNK = b"x" * 65536


def post(url: str, headers: dict[str, str], body: bytes | int = b"", wait_s: float = 30.0) -> tuple[int | None, int]:
    """(status or None if nothing answered within ``wait_s``, bytes of the body sent). ``body`` may be a
    size: that many filler bytes, declared in Content-Length unless the headers set it."""
    parts = urlsplit(url)
    size = body if isinstance(body, int) else len(body)
    lines = [f"POST {parts.path or '/'} HTTP/1.1", f"Host: {parts.hostname}:{parts.port}"]
    if not any(name.lower() in ("content-length", "transfer-encoding") for name in headers):
        lines.append(f"Content-Length: {size}")
    lines += [f"{name}: {value}" for name, value in headers.items()]
    sent, answer = 0, b""
    with socket.create_connection((parts.hostname, parts.port), timeout=wait_s) as sock:
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        while b"\r\n" not in answer:
            want_write = [sock] if sent < size else []
            readable, writable, _ = select.select([sock], want_write, [], wait_s)
            if readable:
                try:
                    data = sock.recv(65536)
                except OSError:
                    break
                if not data:
                    break
                answer += data
            elif writable:
                piece = CHUNK[: size - sent] if isinstance(body, int) else body[sent:sent + len(CHUNK)]
                try:
                    sent += sock.send(piece)
                except OSError:
                    break
            else:
                break  # nothing answered within wait_s
    status_line = answer.split(b"\r\n", 1)[0].split()
    return (int(status_line[1]) if len(status_line) >= 2 else None), sent
