"""apsw errors mapped onto the contract's errors (app.engines.base), in one place.

A broken constraint is a ConflictError (HTTP 409). A full disk, a read-only file or file system, a
file that cannot be opened and an I/O error are not bugs of a request: they become
``UnavailableError`` (HTTP 503 with Retry-After, a one-line CLI exit), and ``check_writable`` is
the cheap probe ``ping`` uses so /readyz says so before a write fails.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import apsw

from app.engines.base import ConflictError, UnavailableError
from app.entities import EntitySpec



@contextmanager
def conflicts(entity: EntitySpec) -> Iterator[None]:
    """A broken constraint (unknown foreign key, duplicate unique value) becomes a ConflictError."""
    try:
        yield
    except apsw.ConstraintError as exc:
        raise ConflictError(f"{entity.name}: {exc}") from exc


MIN_FREE_BYTES = 1 << 20  # below this a write of a few pages plus its WAL frames may already fail

_STORAGE_ERRORS = (apsw.FullError, apsw.ReadOnlyError, apsw.CantOpenError, apsw.IOError, apsw.PermissionsError)


def unavailable(exc: apsw.Error, path: str) -> UnavailableError | None:
    """The contract error for a storage fault, or None when ``exc`` is something else."""
    if isinstance(exc, apsw.FullError):
        return UnavailableError(f"the disk holding the SQLite database {path!r} is full: free space, then retry", 60)
    if isinstance(exc, apsw.ReadOnlyError):
        return UnavailableError(f"the SQLite database {path!r} is read-only: make the file, its directory and "
                                "its file system writable for this process")
    if isinstance(exc, _STORAGE_ERRORS):
        return UnavailableError(f"the SQLite database {path!r} cannot be used ({type(exc).__name__}: {exc}): "
                                "check the disk, the file and its directory")
    return None


def refuse_read_only(conn: apsw.Connection, path: str) -> None:
    """SQLite opens a write-protected file read-only without a word; say so before a write fails."""
    if conn.readonly("main"):
        raise UnavailableError(f"the SQLite database {path!r} is open read-only: make the file, its directory "
                               "and its file system writable for this process")


def check_writable(conn: apsw.Connection, path: str) -> None:
    """Raise UnavailableError when a write would fail: a read-only open, a read-only mount, a full disk.

    Reads what SQLite and the kernel already know (no write, no wait on the write lock), so a readiness
    probe may call it as often as it likes; an empty BEGIN IMMEDIATE; COMMIT would miss a file system
    remounted read-only or a full disk, and would queue behind a long write transaction.
    """
    refuse_read_only(conn, path)
    if path == ":memory:":
        return
    try:
        fs = os.statvfs(Path(path).expanduser().resolve().parent)
    except OSError as exc:
        raise UnavailableError(f"cannot inspect the file system of the SQLite database {path!r}: {exc}") from exc
    if fs.f_flag & os.ST_RDONLY:
        raise UnavailableError(f"the file system holding the SQLite database {path!r} is mounted read-only")
    free = fs.f_bavail * fs.f_frsize
    if free < MIN_FREE_BYTES:
        raise UnavailableError(f"the disk holding the SQLite database {path!r} is full ({free} bytes free): "
                               "free space, then retry", 60)
