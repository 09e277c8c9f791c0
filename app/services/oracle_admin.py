"""Oracle operations behind `ragctl oracle bootstrap` / `rebuild-index` / `migration-rerun`.

Each returns a short human summary; failures raise app.engines.base.EngineError (or its
ModelMissingError subclass) with a message that says what to do.
"""

from __future__ import annotations

from app.config import Settings


def _open(settings: Settings):
    if settings.engine != "oracle":
        from app.engines.base import EngineError

        raise EngineError("RAG_DATABASE_URL is not an oracle:// URL; these commands manage the Oracle engine only")
    from app.engines.oracle.engine import OracleEngine

    return OracleEngine.open(settings)


def _driver_errors_as_engine_errors(what: str):
    """A connection or SQL failure becomes an EngineError the CLI prints, not a stack trace."""
    import contextlib

    import oracledb

    from app.engines.base import EngineError

    @contextlib.contextmanager
    def guard():
        try:
            yield
        except oracledb.Error as exc:
            raise EngineError(f"{what} failed: {exc}") from exc

    return guard()


def bootstrap(settings: Settings) -> str:
    """Apply pending migrations, load the ONNX embedding model once (guarded by USER_MINING_MODELS), then probe
    the chunk upsert's two forms on a rolled-back scratch chunk and store the one that works."""
    with _driver_errors_as_engine_errors("oracle bootstrap"):
        engine = _open(settings)
        try:
            applied = engine.migrate()
            model = engine.ensure_model()
            form = engine.choose_upsert_form()  # `bootstrap && serve` must not start on a refused form
        finally:
            engine.close()
    migrated = f"applied migrations {', '.join(applied)}" if applied else "schema already up to date"
    return f"{migrated}; {model}; {form}"


def rebuild_index(settings: Settings) -> str:
    """Rebuild the IVF vector index so its centroids match the data (run after bulk loads)."""
    with _driver_errors_as_engine_errors("oracle rebuild-index"):
        engine = _open(settings)
        try:
            return engine.rebuild_vector_index()
        finally:
            engine.close()


def migration_rerun(settings: Settings) -> str:
    """Forget the newest applied migration and apply it again, as a run that died before its version row leaves
    it: proves the rerun tolerance (REVIEW-4 U2) on this database. For test databases (`make test-oracle`)."""
    from app.engines.oracle import migrate
    from app.services.oracle_doctor import connector

    if settings.engine != "oracle":
        return _open(settings)  # raises the same EngineError as the other commands
    with _driver_errors_as_engine_errors("oracle migration-rerun"):
        conn = connector(settings)()
        try:
            return migrate.rerun_newest(conn)
        finally:
            conn.close()
