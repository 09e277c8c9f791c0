"""Where an engine's migration files are: the repository's ``migrations/<engine>/`` in a source checkout
(``make run``, ``pip install -e .``), or the copy a wheel installs as data files under
``<prefix>/share/oracle-rag-backend/migrations/<engine>/`` (pyproject.toml ``[tool.setuptools.data-files]``;
a non-editable install such as docker/app.Dockerfile's)."""

from __future__ import annotations

import sysconfig
from pathlib import Path

SHARE = Path("share") / "oracle-rag-backend" / "migrations"


def migrations_dir(engine: str, package_dir: Path | None = None, data_dir: Path | None = None) -> Path:
    """The directory of ``engine``'s migrations (``package_dir``: the ``app`` package; ``data_dir``: the
    installation's data root, sysconfig's ``data`` path). The checkout wins when both exist."""
    package_dir = package_dir or Path(__file__).resolve().parents[1]
    checkout = package_dir.parent / "migrations" / engine
    if checkout.is_dir():
        return checkout
    installed = (data_dir or Path(sysconfig.get_paths()["data"])) / SHARE / engine
    if installed.is_dir():
        return installed
    raise FileNotFoundError(f"no {engine} migrations: neither {checkout} (a source checkout) nor {installed} "
                            "(an installed wheel) exists; reinstall the package")
