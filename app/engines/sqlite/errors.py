"""apsw errors mapped onto the contract's errors (app.engines.base), in one place."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import apsw

from app.engines.base import ConflictError
from app.entities import EntitySpec


@contextmanager
def conflicts(entity: EntitySpec) -> Iterator[None]:
    """A broken constraint (unknown foreign key, duplicate unique value) becomes a ConflictError."""
    try:
        yield
    except apsw.ConstraintError as exc:
        raise ConflictError(f"{entity.name}: {exc}") from exc
