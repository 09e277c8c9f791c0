"""`ragctl oracle doctor` results and their rendering: no I/O, no driver.

Each check proves one statement shape on the live database and names the FACTS.md section (or the
document) it proves. A ``needed`` check that fails makes the exit status 1; a warning (a fallback was
selected, a diagnostic could not be read) does not. Exit status 2: the database could not be reached.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Literal

Status = Literal["PASS", "WARN", "FAIL", "SKIP"]
EXIT_OK, EXIT_FAILED, EXIT_NO_CONNECTION = 0, 1, 2
MIN_VERSION = (23, 4)  # VECTOR columns and VECTOR_EMBEDDING (FACTS.md §1: "Oracle Database 23.4 columns of type VECTOR")


@dataclass(frozen=True)
class CheckResult:
    name: str
    proves: str  # the FACTS.md section (or document) the check proves on this database
    status: Status
    detail: str
    error: str | None = None  # the Oracle error, first line
    fallback: str | None = None  # the fallback this check selected, if any
    needed: bool = True  # does the service need it? (a needed FAIL makes the exit status 1)


def passed(name: str, proves: str, detail: str, needed: bool = True) -> CheckResult:
    return CheckResult(name, proves, "PASS", detail, needed=needed)


def failed(name: str, proves: str, detail: str, error: BaseException | str | None = None,
           fallback: str | None = None, needed: bool = True) -> CheckResult:
    return CheckResult(name, proves, "FAIL", detail, first_line(error), fallback, needed)


def warned(name: str, proves: str, detail: str, error: BaseException | str | None = None,
           fallback: str | None = None) -> CheckResult:
    return CheckResult(name, proves, "WARN", detail, first_line(error), fallback, needed=False)


def first_line(error: BaseException | str | None) -> str | None:
    """An Oracle error's first line (ORA-nnnnn: text), without the help URL lines that follow."""
    if error is None:
        return None
    # python-oracledb errors carry their _Error in args[0]; its .message is the "ORA-nnnnn: text" line.
    inner = error.args[0] if isinstance(error, BaseException) and error.args else None
    text = str(getattr(inner, "message", None) or error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def blocking(result: CheckResult, strict: bool = False) -> bool:
    """A needed check that failed; with ``strict`` (``--strict``, `make test-oracle`) also one that was skipped,
    so a run that proved less than it should cannot pass."""
    return result.needed and (result.status == "FAIL" or (strict and result.status == "SKIP"))


def exit_code(results: Sequence[CheckResult], strict: bool = False) -> int:
    return EXIT_FAILED if any(blocking(r, strict) for r in results) else EXIT_OK


def parse_version(version: str | None) -> tuple[int, ...] | None:
    """'23.26.0.0.0' -> (23, 26, 0, 0, 0); None when it does not look like a version."""
    if not version or not re.fullmatch(r"\d+(\.\d+)*", version.strip()):
        return None
    return tuple(int(part) for part in version.strip().split("."))


def version_result(version: str | None) -> CheckResult:
    """Oracle >= 23.4 (VECTOR); the release update (23.26.x is 26ai) is reported either way."""
    name, proves = "version", "FACTS.md §1 (VECTOR needs 23.4+), version vocabulary (23.26.x = 26ai)"
    parts = parse_version(version)
    if parts is None:
        return failed(name, proves, f"unreadable server version {version!r}")
    ru = ".".join(str(p) for p in parts[:3])
    if parts[:2] < MIN_VERSION:
        return failed(name, proves, f"Oracle {version} (RU {ru}) has no VECTOR type: 23.4 or later is needed")
    return passed(name, proves, f"Oracle {version} (RU {ru})")


def connection_failed(error: BaseException | str) -> CheckResult:
    return failed("connect", "FACTS.md §9 (connect: host:port/service)", "cannot connect to Oracle", error)


def render_text(results: Sequence[CheckResult], strict: bool = False) -> str:
    """One line per check: STATUS name — detail [proves] (fallback: …) (error: …)."""
    lines = []
    for r in results:
        line = f"{r.status:<4}  {r.name:<22} {r.detail}  [{r.proves}]"
        if r.fallback:
            line += f"  fallback: {r.fallback}"
        if r.error:
            line += f"  error: {r.error}"
        if r.status == "FAIL" and not r.needed:
            line += "  (not needed by the service)"
        if r.status == "SKIP" and r.needed:
            line += "  (needed: unproven" + (", fails --strict)" if not strict else ")")
        lines.append(line)
    code = exit_code(results, strict)
    failures = sum(r.status == "FAIL" and r.needed for r in results)
    skipped = sum(r.status == "SKIP" and r.needed for r in results)
    warnings = sum(r.status == "WARN" or (r.status == "FAIL" and not r.needed) for r in results)
    lines.append(f"doctor: {len(results)} checks, {failures} needed failed, {skipped} needed skipped, "
                 f"{warnings} warnings; exit {code}" + (" (--strict)" if strict else ""))
    return "\n".join(lines)


def render_json(results: Sequence[CheckResult], code: int | None = None, strict: bool = False) -> str:
    return json.dumps({"exit_code": exit_code(results, strict) if code is None else code, "strict": strict,
                       "checks": [asdict(r) for r in results]}, indent=2)


CLAIM_CHECK = "claim (2 workers)"
CLAIM_PROVES = "FACTS.md §6 (ROWID window + SKIP LOCKED; prefetch locks as it fetches), 'Could NOT confirm'"


def claim_skipped(claimable: int) -> CheckResult:
    """Claims take the oldest claimable rows first: with such rows queued, real rows would be locked and the counts
    would lie. Stuck rows and rows in backoff are outside every claim window, so they do not count. The claim is
    needed by the service: the skip leaves it unproven (``--strict`` fails on it)."""
    return CheckResult(CLAIM_CHECK, CLAIM_PROVES, "SKIP",
                       f"the queue holds {claimable} claimable row(s): stop the workers and let it drain, then run "
                       "the doctor again (it claims from its own scratch rows only)")


# What DBMS_XPLAN.DISPLAY_CURSOR prints as rows, instead of raising, when it cannot show the plan: the caller lacks
# SELECT on the V$ views it reads (DOC arpls DBMS_XPLAN "Security Model"; REVIEW-2 W2), or the cursor is gone.
_PLAN_UNREADABLE = ("User has no SELECT privilege", "cannot be found", "cannot fetch plan")


def plan_unreadable(lines: Sequence[str]) -> str | None:
    """The line of DISPLAY_CURSOR's output that says it could not read the plan, if any."""
    return next((line.strip() for line in lines if any(mark in line for mark in _PLAN_UNREADABLE)), None)


def claim_result(batch: int, got_a: Sequence[int], got_b: Sequence[int], locked_a: set[int], locked_b: set[int],
                 scratch: set[int]) -> CheckResult:
    """Judge two concurrent claims over 2 x batch scratch rows (FACTS.md §6 and its 'Could NOT confirm')."""
    name, proves = CLAIM_CHECK, CLAIM_PROVES
    a, b = set(got_a), set(got_b)
    detail = (f"batch {batch}: worker A claimed {len(a)} (locked {len(locked_a)} scratch rows), "
              f"worker B claimed {len(b)} (locked {len(locked_b)})")
    if a & b:
        return failed(name, proves, f"{detail}; {len(a & b)} rows claimed by both")
    if not a or not b:
        return failed(name, proves, f"{detail}; a worker was starved (widen statements.CLAIM_WINDOW_FACTOR)")
    over = len(locked_a) - len(a & scratch), len(locked_b) - len(b & scratch)
    if max(over) > 0:
        return failed(name, proves, f"{detail}; a worker locked rows it did not return (prefetchrows/arraysize)")
    if len(a) < batch or len(b) < batch:
        return warned(name, proves, f"{detail}; disjoint, but short of a full batch (another worker running?)")
    return passed(name, proves, f"{detail}; disjoint, none starved")
