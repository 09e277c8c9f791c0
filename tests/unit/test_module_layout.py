"""The house rules (issues 31 and 32, "the house"): no module of the application over 450 lines, no function over
60, and the Oracle statements split by room with no hub that hides where a statement lives."""

from __future__ import annotations

import ast
from pathlib import Path

APP = Path(__file__).resolve().parents[2] / "app"
ENGINES = APP / "engines"
ORACLE = ENGINES / "oracle"
MAX_LINES = 450
MAX_FUNCTION_LINES = 60


def test_no_engine_module_is_over_450_lines():
    sizes = {str(p.relative_to(ENGINES)): len(p.read_text(encoding="utf-8").splitlines())
             for p in ENGINES.rglob("*.py")}
    assert len(sizes) > 30  # both engines' packages were found
    assert {name: n for name, n in sizes.items() if n > MAX_LINES} == {}


def test_no_application_module_is_over_450_lines():
    sizes = {str(p.relative_to(APP)): len(p.read_text(encoding="utf-8").splitlines()) for p in APP.rglob("*.py")}
    assert len(sizes) > 150  # the whole application was found
    assert {name: n for name, n in sizes.items() if n > MAX_LINES} == {}


def test_no_function_is_over_60_lines():
    long = {}
    for path in APP.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    long[f"{path.relative_to(APP)}:{node.name}"] = length
    assert long == {}


def _imports(path: Path) -> list[str]:
    modules = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            modules.append(node.module)
            modules.extend(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            modules.extend(a.name for a in node.names)
    return modules


def test_the_shared_statements_module_imports_no_room():
    """statements.py is the shared part the rooms import, never a hub re-exporting them."""
    rooms = {f"app.engines.oracle.{p.stem}" for p in ORACLE.glob("*_statements.py")}
    assert len(rooms) >= 9
    assert not [m for m in _imports(ORACLE / "statements.py") if m in rooms or m.startswith("app.engines.oracle")]


def test_each_oracle_statement_name_is_defined_in_one_module_only():
    defined: dict[str, list[str]] = {}
    for path in sorted(ORACLE.glob("*statements.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                names = [node.name]
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names = [t.id for t in targets if isinstance(t, ast.Name)]
            else:
                continue
            for name in names:
                defined.setdefault(name, []).append(path.name)
    assert "CLAIM" in defined and "vector_search" in defined and "tracker_rows" in defined
    assert {n: where for n, where in defined.items() if len(where) > 1} == {}
