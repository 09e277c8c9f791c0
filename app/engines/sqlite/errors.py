"""apsw errors mapped onto the contract's errors (app.engines.base), in one place.

A broken constraint is a ConflictError (HTTP 409). A full disk, a read-only file or file system, a
file that cannot be opened and an I/O error are not bugs of a request: they become
``UnavailableError`` (HTTP 503 with Retry-After, a one-line CLI exit), and ``check_writable`` is
the probe ``ping`` uses so /readyz says so before a write fails.
"""

from __future__ import annotations

import errno
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
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
    """Raise UnavailableError when a write would fail: a read-only open, a read-only or failing file
    system, a full disk.

    What SQLite and the kernel already say (the open mode, statvfs) comes first; then a real write: a
    small file created, written, fsync'ed and removed beside the database. statvfs alone misses ext4's
    emergency read-only (after an error the mount keeps its "rw" flag while every write gets EROFS)
    and a device returning I/O errors; the probe meets both. It never touches the database or its
    write lock, so a readiness probe does not queue behind a long write transaction.
    """
    refuse_read_only(conn, path)
    if path == ":memory:":
        return
    directory = Path(path).expanduser().resolve().parent
    try:
        fs = os.statvfs(directory)
    except OSError as exc:
        raise UnavailableError(f"cannot inspect the file system of the SQLite database {path!r}: {exc}") from exc
    if fs.f_flag & os.ST_RDONLY:
        raise UnavailableError(f"the file system holding the SQLite database {path!r} is mounted read-only")
    free = fs.f_bavail * fs.f_frsize
    if free < MIN_FREE_BYTES:
        raise UnavailableError(f"the disk holding the SQLite database {path!r} is full ({free} bytes free): "
                               "free space, then retry", 60)
    probe_write(directory, path)


PROBE_WAIT_S = 1.0  # a probe still stuck in fsync after this is a hanging disk: not ready
_probe_lock = threading.Lock()  # one probe at a time: a hanging disk must not pile up threads


def probe_write(directory: Path, path: str) -> None:
    """Create, write, fsync and remove a small file in ``directory``; any failure is UnavailableError."""
    if not _probe_lock.acquire(timeout=PROBE_WAIT_S):
        raise UnavailableError(f"a write probe beside the SQLite database {path!r} has not returned for "
                               f"{PROBE_WAIT_S:g} s: the disk may be hanging", 10)
    probe = directory / f".rag-write-probe-{os.getpid()}-{threading.get_ident()}"
    try:
        fd = os.open(probe, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o600)
        try:
            os.write(fd, b"probe")
            os.fsync(fd)
        finally:
            os.close(fd)
            with suppress(OSError):
                os.unlink(probe)
    except OSError as exc:
        raise _storage_fault(exc, path) from exc
    finally:
        _probe_lock.release()


def _storage_fault(exc: OSError, path: str) -> UnavailableError:
    if exc.errno == errno.EROFS:
        return UnavailableError(f"the file system holding the SQLite database {path!r} refuses writes (read-only: "
                                "remounted after an error?): check the disk and the kernel log, then remount it")
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return UnavailableError(f"the disk holding the SQLite database {path!r} is full: free space, then retry", 60)
    return UnavailableError(f"a test write beside the SQLite database {path!r} failed ({exc.strerror or exc}): "
                            "check the disk, the file and its directory")
