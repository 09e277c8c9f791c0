"""The Oracle engine's connection pool: the database URL, pooled connections with their call timeouts, and the
bounds of operator work (REVIEW-3 W3, REVIEW-4 U3). ``OracleEngine`` (engine.py) inherits ``PooledConnections``.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import unquote, urlsplit

from app.config import Settings
from app.engines.base import EngineError, UnavailableError
from app.engines.oracle import errors

log = logging.getLogger("app.engines.oracle.engine")  # the engine's own logger, as before the split


def parse_database_url(settings: Settings) -> tuple[str, str, str]:
    """``oracle://user[:password]@host[:port]/service`` -> (user, password, dsn)."""
    parts = urlsplit(settings.database_url)
    if parts.scheme != "oracle" or not parts.hostname or not parts.path.strip("/"):
        raise EngineError(
            "RAG_DATABASE_URL must look like oracle://user[:password]@host:port/service, "
            f"e.g. oracle://app@localhost:1521/FREEPDB1 (got scheme {parts.scheme!r})"
        )
    user = unquote(parts.username) if parts.username else settings.oracle_user
    if not user:
        raise EngineError("no Oracle user: put it in RAG_DATABASE_URL or set RAG_ORACLE_USER")
    if parts.password is not None:
        password = unquote(parts.password)
    elif settings.oracle_password is not None:
        password = settings.oracle_password.get_secret_value()
    else:
        raise EngineError("no Oracle password: set RAG_ORACLE_PASSWORD (or put it in RAG_DATABASE_URL)")
    dsn = f"{parts.hostname}:{parts.port or 1521}/{parts.path.strip('/')}"
    return user, password, dsn


# The operator's commands (migrate, model load, vector index rebuild) run statements that legitimately take minutes
# (a DDL over a large table, a 120 MB model download): they are run from a terminal, not by the service's pool
# under load, so their calls are not cut (python-oracledb: call_timeout 0 is no timeout).
ADMIN_CALL_TIMEOUT_MS = 0
# A worker batch embeds up to batch_size chunks in one executemany MERGE (VECTOR_EMBEDDING per row): its bound grows
# with the batch, between RAG_ORACLE_CALL_TIMEOUT_MS and RAG_ORACLE_OPERATOR_CALL_TIMEOUT_MS (REVIEW-4 U3).
WORKER_MS_PER_CHUNK = 500


class PooledConnections:
    """Connections from ``self._pool`` under ``self._settings`` (set by OracleEngine.__init__)."""

    _pool: Any
    _settings: Settings

    @staticmethod
    def pool_max(settings: Settings) -> int:
        return max(settings.oracle_pool_max, settings.oracle_pool_min)

    @property
    def _pool_max(self) -> int:
        return self.pool_max(self._settings)

    def close(self) -> None:
        self._pool.close(force=True)

    def _operator_bound(self, work: str) -> tuple[int, str]:
        """The call timeout of operator work and what stops it says (REVIEW-4 U3)."""
        return self._settings.oracle_operator_call_timeout_ms, f"{work} (RAG_ORACLE_OPERATOR_CALL_TIMEOUT_MS)"

    def _worker_bound(self) -> tuple[int, str]:
        """One indexing batch's call timeout: batch_size x WORKER_MS_PER_CHUNK, within the two settings."""
        s = self._settings
        bound = min(max(s.oracle_call_timeout_ms, s.batch_size * WORKER_MS_PER_CHUNK), s.oracle_operator_call_timeout_ms)
        return bound, (f"an indexing batch of up to {s.batch_size} chunks (RAG_BATCH_SIZE x {WORKER_MS_PER_CHUNK} ms, "
                       "at most RAG_ORACLE_OPERATOR_CALL_TIMEOUT_MS)")

    @contextmanager
    def _connection(self, call_timeout_ms: int | None = None, work: str | None = None) -> Iterator[Any]:
        """A pooled connection, rolled back on any exception; "not now" faults become UnavailableError.

        Every round trip on it is bounded by ``call_timeout_ms`` (RAG_ORACLE_CALL_TIMEOUT_MS unless an operator's
        command asks otherwise; 0: no bound): a lock wait or a stuck call ends in DPY-4024 instead of holding a
        pooled connection for ever [PYDOC Connection.call_timeout; REVIEW-3 W3]. Set on every acquire, not once in a
        session callback: a pooled connection keeps what its last holder set, and the pool may reset it to 0
        [ISSUE python-oracledb #558]. ``work`` names operator work with its own bound: cut by it, the error says
        which work stopped and which setting bounds it (REVIEW-4 U3)."""
        try:
            conn = self._pool.acquire()
        except Exception as exc:  # listener down, network gone, pool exhausted past its timeout
            if errors.pool_saturated(exc):
                raise UnavailableError(
                    f"no pooled Oracle connection within RAG_ORACLE_POOL_WAIT_TIMEOUT_MS="
                    f"{self._settings.oracle_pool_wait_timeout_ms} (all {self._pool_max} busy, or a new one could"
                    f" not be opened in time; {errors.pool_state(self._pool, self._pool_max)}): {exc}",
                    errors.POOL_SATURATED_RETRY_S) from exc
            raise UnavailableError(f"cannot get an Oracle connection: {exc}", 10) from exc
        try:
            conn.call_timeout = self._settings.oracle_call_timeout_ms if call_timeout_ms is None else call_timeout_ms
            yield conn
        except BaseException as exc:
            try:
                conn.rollback()
            except Exception as rollback_exc:  # a dead connection: the pool discards it; keep the first error
                log.warning("rollback failed: %s", rollback_exc)
            fault = errors.unavailable(exc)
            if fault is not None and work is not None and errors.call_timed_out(exc):
                raise UnavailableError(f"{work} stopped: one call ran past its call timeout of {call_timeout_ms} ms; "
                                       f"nothing of it was committed, rerun it (or raise the bound): {exc}",
                                       fault.retry_after_s) from exc
            if fault is not None:
                raise fault from exc
            raise
        finally:
            self._pool.release(conn)
