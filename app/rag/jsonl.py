"""What every line-oriented input file shares (BEIR collections, the golden set): an error that names
the file and the 1-based line, and a line that must be one JSON object. Pure: callers read the files."""

from __future__ import annotations

import json


class LineFormatError(ValueError):
    """A malformed line: ``str(exc)`` reads ``<file>:<line>: <what is wrong>``."""

    def __init__(self, source: str, line: int, problem: str) -> None:
        super().__init__(f"{source}:{line}: {problem}")
        self.source, self.line, self.problem = source, line, problem


def json_object(raw: str, source: str, line: int, error: type[LineFormatError] = LineFormatError) -> dict:
    """The line as a JSON object, or ``error`` saying why it is not one."""
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise error(source, line, f"not valid JSON ({exc.msg})") from None
    if not isinstance(value, dict):
        raise error(source, line, "expected a JSON object")
    return value
