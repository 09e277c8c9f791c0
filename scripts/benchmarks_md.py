"""docs/BENCHMARKS.md: one table, one row per figure, appended by every scripts/bench_*.py."""

from __future__ import annotations

import json
from pathlib import Path

PATH = Path(__file__).resolve().parents[1] / "docs" / "BENCHMARKS.md"
HEADER = (
    "# Benchmarks\n\n"
    "Rows are appended by `scripts/bench_*.py` (raw results: `docs/bench/*.json`). Every ratio is measured\n"
    "side by side, interleaved, in one run on this 2-core machine; absolute times are noisy, ratios less so.\n"
    "Targets (issue 2): manager search ≤ 2× the numpy scan at 100k chunks; developer search ≤ 10 ms at\n"
    "100k; worker indexing ≥ 0.8× the raw embedder.\n\n"
    "| date | bench | size | figure | value | reference | ratio |\n"
    "|---|---|---|---|---|---|---|\n"
)


def append_rows(rows: list[str]) -> None:
    if not PATH.exists():
        PATH.parent.mkdir(parents=True, exist_ok=True)
        PATH.write_text(HEADER)
    with PATH.open("a") as f:
        f.write("".join(row + "\n" for row in rows))


def save_result(out: Path, result: dict) -> None:
    """The raw result of one bench run as docs/bench/<name>.json (indented, one trailing newline)."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")


def replace_section(start: str, end: str, intro: str, label: str, tables: str) -> None:
    """Put ``tables`` under ``label`` in the section kept between the ``start`` and ``end`` markers (a run with the
    same label replaces its tables, the other labels' stay); a section not there yet goes before the run log,
    after its ``intro``."""
    import re

    text = PATH.read_text()
    runs: dict[str, str] = {}
    if start in text:
        before, rest = text.split(start, 1)
        body, after = rest.split(end, 1)
        for block in re.split(r"\n(?=### )", body.strip()):
            if block.startswith("### "):
                runs[block.split(" — ", 1)[0][4:]] = block.strip()
    else:
        marker = "\n## Log of every run"
        before, after = (text.split(marker, 1)[0] + "\n" + intro, marker + text.split(marker, 1)[1]) \
            if marker in text else (text + "\n" + intro, "\n")
    runs[label] = tables.strip()
    PATH.write_text(before + start + "\n" + "\n\n".join(runs.values()) + "\n" + end + "\n\n" + after.lstrip("\n"))


def commit(root: Path) -> str:
    """The short commit the run measured ("unknown" outside a git work tree)."""
    import subprocess

    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
