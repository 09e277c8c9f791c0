"""python-oracledb errors mapped onto the contract's errors (app.engines.base), in one place."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from app.engines.base import ConflictError, ModelMissingError, UnavailableError
from app.entities import EntitySpec

# ORA codes that mean "this write broke a constraint".
CONFLICT_CODES = {
    1: "a unique value is already taken",  # ORA-00001
    1400: "a required value is missing",  # ORA-01400
    1407: "a required value is missing",  # ORA-01407
    2290: "a value is not allowed",  # ORA-02290 check constraint
    2291: "a referenced row does not exist",  # ORA-02291
    2292: "other rows still reference this row",  # ORA-02292
}
# ORA codes that mean "the database cannot take this now; retry once the DBA acts": HTTP 503 with
# Retry-After (app/api/errors.py), one line from the CLI. (seconds to suggest, what to say)
_UNAVAILABLE_CODES = {
    **dict.fromkeys((1653, 1654, 1688, 1691, 1536),  # unable to extend table/index/partition/LOB; quota
                    (60, "the tablespace (or the schema's quota) is full: the DBA must add space")),
    16000: (30, "the database is open read-only"),  # ORA-16000
    60: (1, "a deadlock was broken by rolling this statement back"),  # ORA-00060: retry at once
    **dict.fromkeys((1034, 1089, 1090, 3113, 3114, 3135),  # not available, shutting down, connection lost
                    (10, "Oracle is not available")),
}
MODEL_MISSING = 40284  # ORA-40284: model does not exist (FACTS.md §2)
MODEL_EXISTS = 40204  # ORA-40204: model already exists (FACTS.md §2)


def ora_code(exc: BaseException) -> int | None:
    """The ORA-nnnnn number of a python-oracledb error, if it carries one."""
    err = exc.args[0] if getattr(exc, "args", None) else None
    code = getattr(err, "code", None)
    return code if isinstance(code, int) else None


def unavailable(exc: BaseException) -> UnavailableError | None:
    """The contract error for an ORA code that means "not now", or None for anything else."""
    code = ora_code(exc)
    if code not in _UNAVAILABLE_CODES:
        return None
    retry_after_s, what = _UNAVAILABLE_CODES[code]
    return UnavailableError(f"{what} (ORA-{code:05d}): {exc}", retry_after_s)


def model_missing(model_name: str, exc: BaseException | None = None) -> ModelMissingError:
    return ModelMissingError(
        f"The embedding model {model_name} is not loaded in this Oracle schema (ORA-40284). "
        "Run `ragctl oracle bootstrap` (or scripts/bootstrap) to apply migrations and load it; "
        "see docs/ORACLE.md." + (f" [{exc}]" if exc else "")
    )


@contextmanager
def model_required(model_name: str) -> Iterator[None]:
    """ORA-40284 from a statement that embeds becomes the actionable ModelMissingError."""
    try:
        yield
    except Exception as exc:
        if ora_code(exc) == MODEL_MISSING:
            raise model_missing(model_name, exc) from exc
        raise


@contextmanager
def conflicts(entity: EntitySpec) -> Iterator[None]:
    try:
        yield
    except Exception as exc:
        reason = CONFLICT_CODES.get(ora_code(exc) or 0)
        if reason is None:
            raise
        raise ConflictError(f"{entity.name}: {reason} ({exc})") from exc
