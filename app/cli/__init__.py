"""``ragctl``: serve the API, run the worker, migrate, seed demo data, search and operate the index.

One module per command group; importing them registers their commands on the ``cli`` group.
"""

from __future__ import annotations

from app.cli import (  # noqa: F401  (registers the commands)
    data,
    erasure,
    eval,
    index,
    mcp,
    members,
    oracle,
    search,
    server,
    sources,
    summaries,
    telegram,
)
from app.cli.root import CliEnv, cli

__all__ = ["CliEnv", "cli", "main"]


def main() -> None:
    cli(prog_name="ragctl")
