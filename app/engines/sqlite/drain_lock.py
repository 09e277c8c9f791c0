"""One drain at a time per database file, across processes: an exclusive ``flock`` on a file beside it.

SQLite has no ``SKIP LOCKED``: a claim is a plain read of RAG_DIRTY, and the embedding happens before the
write lock is taken (so API writers never wait behind the model). Two worker processes on one file (a
``ragctl worker`` beside the API's, ``ragctl backfill`` beside a server) therefore claimed the same rows and
embedded every chunk twice (1,716 embeddings for 851 chunks). The unit of work that claims holds this lock
until it has written (or failed), so the second process claims only what the first has finished. Threads
of one engine share the process's hold and skip each other's rows by the engine's in-flight set. The kernel
drops the lock with its process, so a SIGKILLed worker holds nothing; a process that waits past
``WAIT_S`` (another one is in a long batch, or stopped) claims nothing this time and tries on its next run.
On one SQLite file the two could not embed in parallel to any gain anyway: they share the machine's cores.
"""

from __future__ import annotations

import fcntl
import os
import threading
import time

WAIT_S = 10.0  # as long as a writer waits for SQLite's own lock (BUSY_TIMEOUT_MS)
POLL_S = 0.02


class DrainLock:
    def __init__(self, database_path: str) -> None:
        self.path = None if database_path == ":memory:" else f"{database_path}.drain-lock"
        self._fd: int | None = None
        self._holders = 0  # units of work of this engine inside the lock
        self._lock = threading.Lock()

    def acquire(self, wait_s: float = WAIT_S) -> bool:
        """Join this process's hold, taking the file lock if no unit of this engine holds it yet. False when
        another process kept it for ``wait_s``."""
        with self._lock:
            if self.path is None or self._holders:
                self._holders += 1
                return True
            if self._fd is None:
                self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
            deadline = time.monotonic() + wait_s
            while True:
                try:
                    fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        return False
                    time.sleep(POLL_S)
            self._holders = 1
            return True

    def release(self) -> None:
        with self._lock:
            self._holders -= 1
            if self._holders == 0 and self._fd is not None:
                fcntl.flock(self._fd, fcntl.LOCK_UN)

    def close(self) -> None:
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)  # closing the descriptor drops any lock it held
                self._fd, self._holders = None, 0
