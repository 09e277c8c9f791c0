"""The export files ``ragctl import jira`` reads: a folder searched recursively (or one file) of JSON holding Jira
issues as the REST API returns them, search pages, projects or lists of projects.

A file import keeps the API's bounds: only regular files are read (a FIFO, a device or a socket named ``x.json``
is refused before it is opened, so it cannot hang the import), a symbolic link is followed only to a regular file
inside the folder, a file over MAX_FILE_BYTES is refused, and a JSON file that holds no Jira data (a
``summary.json`` beside the export) is skipped with a warning instead of aborting the import. Pure apart from
reading the files.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import stat
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.sources import mapping

MAX_FILE_BYTES = 512 * 1024 * 1024  # one export file (a search page of 1,000 issues with comments is a few MB)


class JiraFormatError(ValueError):
    """A file or page that is not a Jira issue, search page or project, or a path that may not be read."""


@dataclass(frozen=True)
class JiraExport:
    issues: list[Mapping[str, Any]]
    projects: dict[str, Mapping[str, Any]]
    files: int
    skipped: list[str] = field(default_factory=list)  # one line per file or item left out, saying why


def read_export(root: str | Path) -> JiraExport:
    """Every issue and project under ``root`` (searched recursively, files in name order): a file holds one
    issue (``{"id", "key", "fields"}``), a search page (``{"issues": [...]}``), a project (``project.json``,
    the /rest/api/2/project/{key} shape) or a list of projects (/rest/api/2/project). A file that may not be
    read (not a regular file, a link out of the folder, too large) or holds no Jira data is skipped and named
    in ``skipped``; ``root`` itself must be a folder or a regular JSON file (JiraFormatError otherwise)."""
    path = Path(root)
    if not path.exists() and not path.is_symlink():
        raise JiraFormatError(f"{root}: no such file or folder")
    skipped: list[str] = []
    if path.is_dir():
        files = list(_json_files(path.resolve(), skipped))
    else:
        why = _unreadable(path, None)
        if why:
            raise JiraFormatError(f"{root}: {why}")
        files = [path]
    issues: dict[str, Mapping[str, Any]] = {}
    projects: dict[str, Mapping[str, Any]] = {}
    for file in files:
        for kind, item in _items(file, skipped):
            if kind == "project":
                projects[str(item["key"])] = item
            else:
                issues[str(item["key"])] = item  # the same issue in two files: the later file wins
    return JiraExport(list(issues.values()), projects, len(files), skipped)


def _json_files(root: Path, skipped: list[str]) -> Iterator[Path]:
    """The ``*.json`` files under ``root`` in name order; symbolic links to folders are not followed."""
    found = []
    for folder, _dirs, names in os.walk(root, followlinks=False):
        found += [Path(folder) / name for name in names if name.lower().endswith(".json")]
    for file in sorted(found):
        why = _unreadable(file, root)
        if why:
            skipped.append(f"{file}: {why}; skipped")
        else:
            yield file


def _unreadable(file: Path, root: Path | None) -> str | None:
    """Why ``file`` may not be read, or None: it must be (or link, inside ``root``, to) a regular file."""
    try:
        if file.is_symlink():
            target = file.resolve(strict=True)
            if root is not None and not target.is_relative_to(root):
                return f"a symbolic link out of the folder (to {target})"
        info = os.stat(file)
    except (OSError, RuntimeError) as exc:
        return f"not readable ({exc})"
    if not stat.S_ISREG(info.st_mode):
        return "not a regular file (a FIFO, a device or a socket is never read)"
    if info.st_size > MAX_FILE_BYTES:
        return f"{info.st_size:,} bytes, over the {MAX_FILE_BYTES:,} a file may hold"
    return None


def _items(file: Path, skipped: list[str]) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """The issues and projects of one file; what is not Jira data is named in ``skipped``."""
    try:
        with open(file, "rb", opener=_nonblocking) as handle:  # a FIFO swapped in after the check cannot block
            data = json.loads(handle.read(MAX_FILE_BYTES + 1).decode("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        skipped.append(f"{file}: not readable JSON ({type(exc).__name__}: {str(exc)[:120]}); skipped")
        return
    found = 0
    for item in data if isinstance(data, list) else [data]:
        if isinstance(item, Mapping) and isinstance(item.get("issues"), list):
            for issue in item["issues"]:
                if isinstance(issue, Mapping) and "key" in issue and "fields" in issue:
                    found += 1
                    yield "issue", issue
        elif isinstance(item, Mapping) and "fields" in item and "key" in item:
            found += 1
            yield "issue", item
        elif isinstance(item, Mapping) and isinstance(item.get("key"), str) and "name" in item:
            found += 1
            yield "project", item
    if not found:
        skipped.append(f"{file}: neither a Jira issue, a search page nor a project; skipped")


def _nonblocking(path: str, flags: int) -> int:
    """Open without blocking: a FIFO put in a checked file's place answers at once instead of waiting for a writer."""
    return os.open(path, flags | os.O_NONBLOCK)


def issue_order(issue: Mapping[str, Any]) -> tuple:
    """Files are written in the order Jira would page them (by update time, then key)."""
    fields = issue.get("fields") if isinstance(issue.get("fields"), Mapping) else {}
    return (mapping.parse_datetime(fields.get("updated")) or mapping.parse_datetime(fields.get("created"))
            or dt.datetime.min,
            str(issue.get("key")))
